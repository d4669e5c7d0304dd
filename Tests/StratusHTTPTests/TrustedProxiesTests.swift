import StratusHTTP
import Testing

@Suite struct TrustedProxiesTests {
    static func request(from peer: String, forwardedFor: [String] = [], proto: String? = nil) -> HTTPRequest {
        var headers = HTTPHeaders()
        for value in forwardedFor { headers.add("X-Forwarded-For", value) }
        if let proto { headers.add("X-Forwarded-Proto", proto) }
        var request = HTTPRequest(method: .get, path: "/", headers: headers)
        request.remoteAddress = peer
        return request
    }

    static func applied(_ proxies: TrustedProxies, _ request: HTTPRequest) -> HTTPRequest {
        var request = request
        proxies.apply(to: &request)
        return request
    }

    /// The host of a `Host` value, read by byte: names (any script), ports, bracketed IPv6.
    @Test func theHostOfAnAuthorityIsReadByByte() {
        #expect(Loopback.host(ofAuthority: "example.com") == "example.com")
        #expect(Loopback.host(ofAuthority: "example.com:8420") == "example.com")
        #expect(Loopback.host(ofAuthority: "bücher.example:80") == "bücher.example")
        #expect(Loopback.host(ofAuthority: "[::1]") == "::1")
        #expect(Loopback.host(ofAuthority: "[::1]:80") == "::1")
        for bad in ["", ":80", "a:b:80", "a::80", "[::1", "[::1]x", "[::1]:", "[::1]:8x", "a:", "a:8x", "a:\u{301}80", "a:123456"] {
            #expect(Loopback.host(ofAuthority: bad) == nil, "\(bad)")
        }
    }

    @Test func theClientIsTheRightmostHopThatIsNoTrustedProxy() throws {
        let proxies = try TrustedProxies(["10.0.0.5", "192.168.0.0/16"])
        // The client wrote "1.1.1.1" itself; 203.0.113.9 is who connected to the outer proxy.
        let request = Self.request(from: "10.0.0.5", forwardedFor: ["1.1.1.1, 203.0.113.9", "192.168.4.4"], proto: "https")
        let applied = Self.applied(proxies, request)
        #expect(applied.remoteAddress == "203.0.113.9")
        #expect(applied.scheme == "https")
    }

    @Test func headersFromAnUntrustedPeerAreIgnored() throws {
        let proxies = try TrustedProxies(["10.0.0.5"])
        let applied = Self.applied(proxies, Self.request(from: "10.0.0.6", forwardedFor: ["203.0.113.9"], proto: "https"))
        #expect(applied.remoteAddress == "10.0.0.6")
        #expect(applied.scheme == "http")
        // And with no proxy configured at all.
        #expect(Self.applied(TrustedProxies(), Self.request(from: "10.0.0.5", forwardedFor: ["203.0.113.9"])).remoteAddress == "10.0.0.5")
    }

    @Test func hopsWithPortsMappedAddressesAndGarbage() throws {
        let proxies = try TrustedProxies(["::ffff:10.0.0.0/104", "fd00::/8"])
        #expect(proxies.contains(try #require(IPAddress("10.9.9.9"))))
        #expect(proxies.contains(try #require(IPAddress("fd12::1"))))
        #expect(proxies.client(forwardedFor: ["[2001:db8::7]:4711"])?.description == "2001:db8::7")
        #expect(proxies.client(forwardedFor: ["198.51.100.1:80"])?.description == "198.51.100.1")
        // A hop that is no address ends the walk: the last trusted hop is the best known client.
        #expect(proxies.client(forwardedFor: ["unknown, 10.0.0.7"])?.description == "10.0.0.7")
        #expect(proxies.client(forwardedFor: ["nonsense"]) == nil)
        #expect(proxies.client(forwardedFor: []) == nil)
        // Every hop trusted: the leftmost.
        #expect(proxies.client(forwardedFor: ["10.0.0.1, 10.0.0.2"])?.description == "10.0.0.1")
        // A bad X-Forwarded-Proto changes nothing.
        let request = Self.applied(proxies, Self.request(from: "10.0.0.1", forwardedFor: ["203.0.113.1"], proto: "javascript"))
        #expect(request.scheme == "http")
    }

    @Test(arguments: ["proxy", "10.0.0.0/33", "::/129", "10.0.0.1/x", ""]) func malformedEntriesAreRefusedByName(_ entry: String) {
        #expect(throws: TrustedProxies.ParseError.self) { try TrustedProxies([entry]) }
    }

    @Test func loopbackNamesAddressesAndOrigins() {
        for host in ["localhost", "LOCALHOST.", "app.localhost", "127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
            #expect(Loopback.isLoopbackHost(host), "\(host)")
        }
        for host in ["localhost.evil.example", "evil.example", "0.0.0.0", "::", "10.0.0.1", "128.0.0.1", ""] {
            #expect(!Loopback.isLoopbackHost(host), "\(host)")
        }
        #expect(Loopback.isLoopbackAuthority("127.0.0.1:8420"))
        #expect(Loopback.isLoopbackAuthority("[::1]:8420"))
        #expect(!Loopback.isLoopbackAuthority("127.0.0.1:80:80"))
        #expect(!Loopback.isLoopbackAuthority("127.0.0.1@evil.example"))
        // A port is ASCII digits only: other scripts' digits, fractions and absurd lengths are not one.
        for authority in ["127.0.0.1:٨٤٢٠", "127.0.0.1:½", "[::1]:８４２０", "127.0.0.1:", "[::1]:", "127.0.0.1:123456"] {
            #expect(!Loopback.isLoopbackAuthority(authority), "\(authority)")
        }
        #expect(Loopback.isLoopbackOrigin("http://localhost:5173"))
        #expect(Loopback.isLoopbackOrigin("https://[::1]"))
        #expect(!Loopback.isLoopbackOrigin("null"))
        #expect(!Loopback.isLoopbackOrigin("file://"))
        #expect(!Loopback.isLoopbackOrigin("http://localhost.evil.example"))
    }

    @Test func anOpenServersHostGuardRefusesForeignHosts() async {
        var router = Router()
        router.use(LoopbackHostMiddleware())
        router.immediate(.get, "/x") { _ in .text("ok") }
        #expect(await send(router, .get, "/x", headers: ["Host": "localhost:8420"]).status == .ok)
        #expect(await send(router, .get, "/x", headers: [:]).status == .ok)
        let refused = await send(router, .get, "/x", headers: ["Host": "evil.example"])
        #expect(refused.status == .forbidden)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("'evil.example' is not a loopback name"))
    }

    /// Added after other middleware, the proxy step still runs first, so they all see the client.
    @Test func theProxyStepRunsBeforeMiddlewareAddedEarlier() async throws {
        struct Recorder: HTTPMiddleware {
            func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
                request.headers.add("X-Seen-Address", request.remoteAddress ?? "-")
                return nil
            }
        }
        var router = Router()
        router.use(Recorder())
        router.useFirst(TrustedProxyMiddleware(try TrustedProxies(["10.0.0.5"])))
        router.immediate(.get, "/x") { request in .text(request.headers["X-Seen-Address"] ?? "") }
        var request = HTTPRequest(method: .get, path: "/x", headers: ["X-Forwarded-For": "203.0.113.9"])
        request.remoteAddress = "10.0.0.5"
        guard case .now(let response) = router.respond(to: request) else { Issue.record("expected an immediate answer"); return }
        #expect(String(decoding: response.body, as: UTF8.self) == "203.0.113.9")
    }
}
