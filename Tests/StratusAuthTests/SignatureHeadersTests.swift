import StratusHTTP
@testable import StratusServer
import Testing

/// The one-pass lookup of the server-to-server headers and the signed-path forms.
@Suite struct SignatureHeadersTests {
    @Test func theThreeHeadersAreFoundInAnyCaseAmongOthers() {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        headers.add("x-apple-cloudkit-request-signaturev1", "signature")
        // Same lengths as the real names (30 and 36 bytes), other text.
        headers.add("X-Apple-CloudKit-Request-KeyIX", "not the key")
        headers.add("X-Apple-CloudKit-Request-ISO8601Datf", "not the date")
        headers.add("X-APPLE-CLOUDKIT-REQUEST-KEYID", "key")
        headers.add("X-Apple-CloudKit-Request-ISO8601Date", "2016-01-25T22:15:43Z")
        let found = Authenticator.SignatureHeaders(headers)
        #expect(found.keyID == "key")
        #expect(found.date == "2016-01-25T22:15:43Z")
        #expect(found.signature == "signature")
    }

    @Test func missingHeadersAreNilAndTheFirstOfTwinsWins() {
        var headers = HTTPHeaders()
        headers.add("X-Apple-CloudKit-Request-SignatureV1", "first")
        headers.add("X-Apple-CloudKit-Request-SignatureV1", "second")
        headers.add("X-Apple-CloudKit-Request-", "prefix only")
        let found = Authenticator.SignatureHeaders(headers)
        #expect(found.keyID == nil)
        #expect(found.date == nil)
        #expect(found.signature == "first")
        #expect(Authenticator.SignatureHeaders(HTTPHeaders()).signature == nil)
    }

    @Test(arguments: [
        (
            "/database/1/iCloud.com.Example-App_1~x/development/public/records/lookup",
            ["/database/1/iCloud.com.Example-App_1~x/development/public/records/lookup"]
        ),
        ("/database/1/c/development/public/records/a b", ["/database/1/c/development/public/records/a b", "/database/1/c/development/public/records/a%20b"]),
        ("/database/1/c/é", ["/database/1/c/é", "/database/1/c/%C3%A9"]),
        ("/database/1/c/[x]", ["/database/1/c/[x]", "/database/1/c/%5Bx%5D"]),
    ])
    func signedPathsAddTheEncodedFormOnlyWhenItDiffers(path: String, expected: [String]) {
        #expect(Authenticator.signedPaths(path) == expected)
    }
}
