import Foundation
import FoundationNetworking
import StratusClient
import Testing

/// `URLSessionTransport`'s redirect rule, as `CurlTransport` keeps it: an `https` request never
/// follows a redirect to plain `http`. (A live `https` test needs a private CA that URLSession on
/// Linux cannot be told to trust; `CurlTransportTests` runs the live attack against the Linux
/// transport, and `redirectsAreFollowedAsURLSessionFollowsThem` checks that other redirects are
/// still followed through the guard.)
@Suite struct URLSessionRedirectGuardTests {
    @Test func anHTTPSRequestStaysOnHTTPSAndOthersFollowAnywhere() {
        let secure = URL(string: "https://cloud.example.com/database/1/modify")
        #expect(!URLSessionRedirectGuard.allows(from: secure, to: URL(string: "http://cloud.example.com/stolen")))
        #expect(!URLSessionRedirectGuard.allows(from: secure, to: URL(string: "HTTP://cloud.example.com/stolen")))
        #expect(!URLSessionRedirectGuard.allows(from: secure, to: nil))
        #expect(!URLSessionRedirectGuard.allows(from: URL(string: "HTTPS://cloud.example.com/"), to: URL(string: "http://a/")))
        #expect(URLSessionRedirectGuard.allows(from: secure, to: URL(string: "https://other.example.com/")))
        #expect(URLSessionRedirectGuard.allows(from: URL(string: "http://127.0.0.1:8420/a"), to: URL(string: "http://127.0.0.1:8420/b")))
        #expect(URLSessionRedirectGuard.allows(from: URL(string: "http://127.0.0.1:8420/a"), to: URL(string: "https://cloud.example.com/")))
    }

    @Test func theAnswerOfARefusedRedirectIsRecognizedAndNoOtherIs() throws {
        let secure = try #require(URL(string: "https://cloud.example.com/modify"))
        func answer(_ status: Int, location: String?, url: URL = secure) throws -> HTTPURLResponse {
            try #require(HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: location.map { ["Location": $0] } ?? [:]))
        }
        #expect(URLSessionRedirectGuard.isRefusedRedirect(of: secure, try answer(307, location: "http://evil.example.com/")))
        #expect(URLSessionRedirectGuard.isRefusedRedirect(of: secure, try answer(302, location: "http://cloud.example.com/x")))
        #expect(!URLSessionRedirectGuard.isRefusedRedirect(of: secure, try answer(302, location: "/relative")))
        #expect(!URLSessionRedirectGuard.isRefusedRedirect(of: secure, try answer(301, location: "https://cloud.example.com/y")))
        #expect(!URLSessionRedirectGuard.isRefusedRedirect(of: secure, try answer(200, location: "http://evil.example.com/")))
        #expect(!URLSessionRedirectGuard.isRefusedRedirect(of: secure, try answer(304, location: nil)))
        let plain = try #require(URL(string: "http://127.0.0.1:8420/a"))
        #expect(!URLSessionRedirectGuard.isRefusedRedirect(of: plain, try answer(302, location: "http://127.0.0.1:8420/b", url: plain)))
    }
}
