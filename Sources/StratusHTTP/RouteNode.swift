/// One node of the router's path tree.
struct RouteNode: Sendable {
    var literals: [String: RouteNode] = [:]
    /// At most one `{name}` child; an array gives the recursive struct its indirection.
    var parameterChild: [ParameterEdge] = []
    /// The `{name...}` route that takes the rest of the path, if any.
    var catchAll: CatchAll?
    var routes: [HTTPMethod: Route] = [:]

    struct ParameterEdge: Sendable {
        var name: String
        var node: RouteNode
    }

    /// A `{name...}` leaf: it takes the rest of the path, so it has no children.
    struct CatchAll: Sendable {
        var name: String
        var routes: [HTTPMethod: Route] = [:]
    }

    struct Match {
        var routes: [HTTPMethod: Route]
        var parameters: [String: String]
    }

    /// Splits a template or path into its non-empty segments.
    ///
    /// Over the UTF-8 bytes: `/` is one byte that never occurs inside another character's
    /// encoding, and splitting by `Character` ran grapheme breaking over every byte of every
    /// request's path, twice a request (admission, then routing).
    static func segments(of path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { Substring($0) }
    }

    mutating func insert(segments: ArraySlice<Substring>, method: HTTPMethod, route: Route, template: String) {
        guard let first = segments.first else {
            precondition(routes[method] == nil, "route \(method) \(template) is registered twice")
            routes[method] = route
            return
        }
        let rest = segments.dropFirst()
        if first.hasPrefix("{"), first.hasSuffix("...}") {
            precondition(rest.isEmpty, "{name...} must be the last segment of \(template)")
            let name = String(first.dropFirst().dropLast(4))
            var leaf = catchAll ?? CatchAll(name: name)
            precondition(leaf.name == name, "conflicting catch-all names {\(leaf.name)...} and {\(name)...} in \(template)")
            precondition(leaf.routes[method] == nil, "route \(method) \(template) is registered twice")
            leaf.routes[method] = route
            catchAll = leaf
        } else if first.hasPrefix("{"), first.hasSuffix("}") {
            let name = String(first.dropFirst().dropLast())
            if parameterChild.isEmpty {
                parameterChild = [ParameterEdge(name: name, node: RouteNode())]
            }
            precondition(parameterChild[0].name == name, "conflicting parameter names {\(parameterChild[0].name)} and {\(name)} in \(template)")
            parameterChild[0].node.insert(segments: rest, method: method, route: route, template: template)
        } else {
            literals[String(first), default: RouteNode()].insert(segments: rest, method: method, route: route, template: template)
        }
    }

    /// Finds the node for `path`, preferring literals, then `{name}`, then `{name...}`.
    func match(path: String) -> Match? {
        // NB: parameters are collected in a small array while descending (appended, removed again
        // when a branch fails) and become a dictionary once, at the end: copying a dictionary at every
        // `{name}` level was most of a match's cost, twice a request.
        var found: [(name: String, value: String)] = []
        found.reserveCapacity(4)
        let segments = Self.segments(of: path)
        guard let routes = match(segments[...], &found) else { return nil }
        var parameters: [String: String] = Dictionary(minimumCapacity: found.count)
        for (name, value) in found { parameters[name] = value }
        return Match(routes: routes, parameters: parameters)
    }

    private func match(_ segments: ArraySlice<Substring>, _ parameters: inout [(name: String, value: String)]) -> [HTTPMethod: Route]? {
        guard let first = segments.first else {
            return routes.isEmpty ? nil : routes
        }
        let rest = segments.dropFirst()
        if let literal = literals[String(first)], let found = literal.match(rest, &parameters) {
            return found
        }
        if let edge = parameterChild.first {
            let depth = parameters.count
            parameters.append((edge.name, String(first)))
            if let found = edge.node.match(rest, &parameters) {
                return found
            }
            parameters.removeSubrange(depth...)
        }
        if let catchAll {
            parameters.append((catchAll.name, segments.joined(separator: "/")))
            return catchAll.routes
        }
        return nil
    }
}
