import StratusHTTP
import StratusLogging
import StratusServer

/// Writes the console's audit log (Documentation/0022-console.md, "Audit log").
///
/// A change is logged *before* it is made, as `started`, and concluded after it as `done` or
/// `failed` with its final target and detail. If the entry cannot be written the change is not
/// made; if the conclusion cannot be written, or the server stops in between, the entry stays
/// `started`, which tells the operator to check. So no change made through the console is ever
/// missing from the log — the store cannot commit the change and its entry in one transaction
/// (the records, accounts and console tables have writers of their own).
///
/// ```swift
/// import StratusServer
///
/// func revoke(_ prefix: String, by caller: ConsoleCaller, log: ConsoleAuditLog, administration: AccountAdministration) async throws -> APITokenRecord {
///     try await log.change(caller, "tokens.revoke", target: "token \(prefix)…") {
///         let record = try await administration.revokeAPIToken(prefix)
///         return (record, ConsoleAuditLog.Conclusion(target: record.container, detail: record.name))
///     }
/// }
/// ```
struct ConsoleAuditLog: Sendable {
    /// What an audited change reports once made: its entry's final target, detail and outcome.
    struct Conclusion: Sendable {
        var target: String
        var detail: String = ""
        var outcome: ConsoleAuditEntry.Outcome = .done
    }

    let store: any ConsoleStore
    let now: @Sendable () -> Int64
    let logger: Logger

    /// The longest detail kept.
    static let detailLimit = 2000

    /// Logs an event that already happened and changed no data (a sign-in, a sign-out), as `done`.
    func record(_ caller: ConsoleCaller, _ action: String, target: String, detail: String = "") async throws {
        _ = try await append(caller, action, target: target, detail: detail, outcome: .done)
    }

    /// Runs `body`, a change, with its entry logged first and concluded after.
    ///
    /// - Parameters:
    ///   - caller: The administrator making the change.
    ///   - action: What is done, such as `tokens.revoke`.
    ///   - target: What it is done to, as the request names it (the conclusion may name it better).
    ///   - detail: What the request asks for, kept if the change fails.
    ///   - body: Makes the change; returns its result and the entry's conclusion.
    /// - Returns: `body`'s result.
    /// - Throws: 503 `TRY_AGAIN_LATER` if the entry cannot be written (nothing is changed then), or `body`'s error.
    func change<T>(
        _ caller: ConsoleCaller, _ action: String, target: String, detail: String = "", _ body: () async throws -> (T, Conclusion)
    ) async throws -> T {
        let sequence: Int64
        do {
            sequence = try await append(caller, action, target: target, detail: detail, outcome: .started)
        } catch {
            logger.error("console change refused: its audit entry cannot be written: \(caller.administrator.emailAddress) \(action) \(target): \(error)")
            throw HTTPError(
                status: .serviceUnavailable, serverErrorCode: "TRY_AGAIN_LATER",
                reason: "the audit log cannot be written, so '\(action)' was not made; try again"
            )
        }
        let result: T
        let conclusion: Conclusion
        do {
            (result, conclusion) = try await body()
        } catch {
            await conclude(sequence, Conclusion(target: target, detail: Self.joined(detail, "\(error)"), outcome: .failed), action: action)
            throw error
        }
        await conclude(sequence, conclusion, action: action)
        return result
    }

    private func append(
        _ caller: ConsoleCaller, _ action: String, target: String, detail: String, outcome: ConsoleAuditEntry.Outcome
    ) async throws -> Int64 {
        let entry = ConsoleAuditEntry(
            at: now(), administrator: caller.administrator.emailAddress, action: action, target: target,
            detail: String(detail.prefix(Self.detailLimit)), outcome: outcome
        )
        return try await store.writeConsole { try $0.appendAudit(entry) }
    }

    /// Concludes an entry; a conclusion the store refuses is logged whole at error level (the
    /// entry stays `started`, and the change has been made or refused already).
    private func conclude(_ sequence: Int64, _ conclusion: Conclusion, action: String) async {
        let detail = String(conclusion.detail.prefix(Self.detailLimit))
        do {
            let concluded = try await store.writeConsole {
                try $0.concludeAudit(sequence: sequence, outcome: conclusion.outcome, target: conclusion.target, detail: detail)
            }
            if !concluded { logger.error("console audit entry \(sequence) was already concluded; not \(conclusion.outcome.rawValue)") }
        } catch {
            logger.error(
                "console audit entry \(sequence) stays 'started': \(action) \(conclusion.target) was \(conclusion.outcome.rawValue) (\(detail)): \(error)")
        }
    }

    private static func joined(_ detail: String, _ reason: String) -> String {
        detail.isEmpty ? reason : "\(detail) — \(reason)"
    }
}
