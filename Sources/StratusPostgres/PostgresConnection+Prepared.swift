import CLibPQ

/// Statements kept prepared on the session (``PostgresStatement/prepared``): the first pipeline that
/// sends one also sends its `Parse` (`PQsendPrepare`), right ahead of it; every use executes the named
/// statement (`PQsendQueryPrepared`). A name is remembered only once PostgreSQL confirmed its `Parse`
/// (a pipeline aborted before it leaves it unprepared, to be sent again), and forgotten on reconnection.
/// The `Parse`s one pipeline sends: by the index of the statement they go out with, and by SQL
/// (a statement used twice in the pipeline is parsed once, ahead of its first use).
struct PipelinePreparations {
    fileprivate(set) var namesByIndex: [Int: String] = [:]
    fileprivate var namesBySQL: [String: String] = [:]
}

extension PostgresConnection {
    /// Sends one statement of a pipeline: named when it is prepared (its `Parse` first if new), else
    /// unnamed. `preparing` notes the statements whose `Parse` went out with them; `false` when libpq refused.
    func send(_ statement: PostgresStatement, at index: Int, preparing: inout PipelinePreparations) throws -> Bool {
        let name = statement.prepared ? preparedName(statement.sql, at: index, preparing: &preparing) : nil
        return withParameters(statement.parameters) { p in
            guard let name else {
                return PQsendQueryParams(handle, statement.sql, p.count, nil, p.values, p.lengths, p.formats, 0) == 1
            }
            if preparing.namesByIndex[index] != nil, PQsendPrepare(handle, name, statement.sql, p.count, nil) != 1 { return false }
            return PQsendQueryPrepared(handle, name, p.count, p.values, p.lengths, p.formats, 0) == 1
        }
    }

    /// The statement's name: known, being prepared earlier in this pipeline, or new (then noted in
    /// `preparing`); `nil` once ``maximumPrepared`` statements are kept.
    private func preparedName(_ sql: String, at index: Int, preparing: inout PipelinePreparations) -> String? {
        if let name = preparedNames[sql] ?? preparing.namesBySQL[sql] { return name }
        let count = preparedNames.count + preparing.namesByIndex.count
        guard count < Self.maximumPrepared else { return nil }
        let name = "stratus_p\(count)_\(roundTrips)"
        preparing.namesByIndex[index] = name
        preparing.namesBySQL[sql] = name
        return name
    }

    /// Reads the result of a `Parse` sent ahead of a statement; remembers the name when it succeeded.
    /// - Returns: The error PostgreSQL reported for it, if any.
    func collectPrepare(named name: String, sql: String) -> PostgresError? {
        var error: PostgresError?
        var prepared = false
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK: prepared = true
            case PGRES_PIPELINE_ABORTED: break
            default: error = Self.error(result, handle: handle, sql: sql)
            }
        }
        if prepared { preparedNames[sql] = name }
        return error
    }
}
