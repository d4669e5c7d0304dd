import StratusHTTP
@testable import StratusServer
import Testing

/// The console's in-process requests are admitted on the operator's word (a task-local grant);
/// the grant names its request, so a task the operator request started — a push drain, say —
/// inherits it without ever admitting another request by it.
@Suite struct OperatorGrantTests {
    static let principal = Principal.serverKey(keyID: "console:ada@example.com", userRecordName: "_developer")

    @Test func anOperatorGrantAdmitsOnlyTheRequestItWasMadeFor() {
        let own = HTTPRequest(method: .post, path: "/database/1/iCloud.com.example.Notes/development/public/records/modify")
        let other = HTTPRequest(method: .post, path: own.path)
        OperatorPrincipal.$current.withValue(OperatorPrincipal.Grant(requestID: own.requestID, principal: Self.principal)) {
            #expect(OperatorPrincipal.principal(for: own) != nil)
            #expect(OperatorPrincipal.principal(for: other) == nil, "another request must not be admitted by the operator's grant")
        }
        #expect(OperatorPrincipal.principal(for: own) == nil)
    }

    @Test func aTaskStartedInsideTheOperatorRequestAdmitsNothingElseByIt() async {
        let own = HTTPRequest(method: .post, path: "/database/1/iCloud.com.example.Notes/development/public/records/modify")
        let leaked = OperatorPrincipal.$current.withValue(OperatorPrincipal.Grant(requestID: own.requestID, principal: Self.principal)) {
            Task { OperatorPrincipal.principal(for: HTTPRequest(method: .post, path: own.path)) == nil }
        }
        #expect(await leaked.value)
    }
}
