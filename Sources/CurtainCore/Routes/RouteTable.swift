import JSON

/// Resolves a route to a destination, and explains the decision.
///
/// Precedence among deep-link rules that match: a higher `priority` first; then the pattern
/// with more literal segments; then more typed placeholders; then declaration order. Push
/// rules: `priority`, then more conditions, then declaration order. A normal start goes to the
/// app's default screen. Nothing matched: the fallback with `reason = "unmatched"`, or an error.
public struct RouteTable: Sendable {
    /// The known apps, by name.
    public var apps: [String: AppRoutes]
    /// Deep-link rules in declaration order, the last key of precedence.
    public var deepLinks: [DeepLinkRule]
    /// Push rules in declaration order, the last key of precedence.
    public var pushRules: [PushRule]
    /// Where a deep link or push that no rule matches goes; nil makes it an error.
    public var fallback: Destination?

    /// A table as given (`problems()` checks it); of two apps with one name the later is kept.
    public init(
        apps: [AppRoutes],
        deepLinks: [DeepLinkRule] = [],
        pushRules: [PushRule] = [],
        fallback: Destination? = nil
    ) {
        self.apps = Dictionary(apps.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.deepLinks = deepLinks
        self.pushRules = pushRules
        self.fallback = fallback
    }

    /// One rule's part in a decision.
    public struct Candidate: Sendable, Hashable {
        /// How the rule fared.
        public enum Verdict: Sendable, Hashable {
            case won
            /// It matched, but rule `to` ranks higher, for the reason given.
            case lost(to: Int, because: String)
            /// It did not match, for the reason given.
            case noMatch(String)
        }
        /// Index of the rule in `deepLinks` or `pushRules`.
        public let rule: Int
        /// The rule in short, e.g. `shop://product/<int:id> → shop/product`.
        public let description: String
        /// Whether it won, lost to another match, or did not match, and why.
        public let verdict: Verdict
    }

    /// A destination, and how it was chosen.
    public struct Resolution: Sendable, Hashable {
        /// Where the launch lands.
        public let destination: Destination
        /// Every rule of the route's kind (deep link or push) in declaration order, with its verdict;
        /// empty for a normal start.
        public let candidates: [Candidate]
    }

    /// Resolves `route` by the precedence above.
    /// - Throws: `RouteError.unknownApp` when a normal start or a push names an unknown app;
    ///   `.tooLong` for a link or payload over its size limit, `.tooDeep` for a payload nested
    ///   too deeply; `.invalidURL` for a malformed link; `.unmatched` when no rule matches and no fallback is set;
    ///   `.nulInParameter` when a parameter would carry a NUL byte.
    public func resolve(_ route: Route) throws(RouteError) -> Resolution {
        let resolution = try resolveUnchecked(route)
        // A parameter reaches the app as one argv element or environment value, where a NUL
        // would end it early while CURTAIN_PARAMS carried it whole: refuse it instead.
        for (name, value) in resolution.destination.parameters.sorted(by: { $0.key < $1.key }) {
            if case .string(let text) = value, text.utf8.contains(0) { throw .nulInParameter(name) }
        }
        return resolution
    }

    private func resolveUnchecked(_ route: Route) throws(RouteError) -> Resolution {
        switch route {
        case .normal(let app):
            guard let routes = apps[app] else { throw .unknownApp(app) }
            return Resolution(destination: Destination(app: app, screen: routes.defaultScreen), candidates: [])
        case .deeplink(let text):
            return try resolveDeepLink(DeepLink(parsing: text), route: route)
        case .push(let app, let payload):
            if let app, apps[app] == nil { throw .unknownApp(app) }
            let size = JSONWriter.bytes(payload).count
            guard size <= Route.maximumPayloadSize else {
                throw .tooLong(what: "push payload", length: size, limit: Route.maximumPayloadSize)
            }
            guard depth(payload) <= Route.maximumPayloadDepth else {
                throw .tooDeep(what: "push payload", limit: Route.maximumPayloadDepth)
            }
            return try resolvePush(app: app, payload: payload, route: route)
        }
    }

    private func resolveDeepLink(_ link: DeepLink, route: Route) throws(RouteError) -> Resolution {
        var matches: [(index: Int, parameters: [String: RouteParameter])] = []
        var reasons: [Int: String] = [:]
        for (index, rule) in deepLinks.enumerated() {
            switch rule.pattern.match(link) {
            case .matched(var parameters):
                for (item, parameter) in rule.query.sorted(by: { $0.key < $1.key }) {
                    if let value = link.queryValue(item) { parameters[parameter] = .string(value) }
                }
                matches.append((index, parameters))
            case .mismatch(let why):
                reasons[index] = why
            }
        }
        let ranked = matches.sorted { deepLinkRank($0.index) > deepLinkRank($1.index) }
        guard let winner = ranked.first else {
            return try unmatched(
                route,
                candidates: deepLinks.indices.map { deepLinkCandidate($0, .noMatch(reasons[$0]!)) }
            )
        }
        let candidates = deepLinks.indices.map { index -> Candidate in
            if index == winner.index { return deepLinkCandidate(index, .won) }
            if let why = reasons[index] { return deepLinkCandidate(index, .noMatch(why)) }
            return deepLinkCandidate(index, .lost(to: winner.index, because: deepLinkWhy(winner.index, beats: index)))
        }
        let rule = deepLinks[winner.index]
        return Resolution(
            destination: Destination(app: rule.app, screen: rule.screen, parameters: winner.parameters),
            candidates: candidates
        )
    }

    /// Higher is better: (priority, literals, typed, −declaration index).
    private func deepLinkRank(_ index: Int) -> (Int, Int, Int, Int) {
        let rule = deepLinks[index]
        return (rule.priority, rule.pattern.literalCount, rule.pattern.typedCount, -index)
    }

    private func deepLinkWhy(_ winner: Int, beats loser: Int) -> String {
        let w = deepLinks[winner]
        let l = deepLinks[loser]
        if w.priority != l.priority { return "lower priority (\(l.priority) < \(w.priority))" }
        if w.pattern.literalCount != l.pattern.literalCount {
            return "fewer literal segments (\(l.pattern.literalCount) < \(w.pattern.literalCount))"
        }
        if w.pattern.typedCount != l.pattern.typedCount {
            return "fewer typed placeholders (\(l.pattern.typedCount) < \(w.pattern.typedCount))"
        }
        return "declared later"
    }

    private func deepLinkCandidate(_ index: Int, _ verdict: Candidate.Verdict) -> Candidate {
        let rule = deepLinks[index]
        return Candidate(rule: index, description: "\(rule.pattern) → \(rule.app)/\(rule.screen)", verdict: verdict)
    }

    private func resolvePush(app: String?, payload: JSONValue, route: Route) throws(RouteError) -> Resolution {
        var matches: [Int] = []
        var reasons: [Int: String] = [:]
        for (index, rule) in pushRules.enumerated() {
            if let app, rule.app != app {
                reasons[index] = "for app '\(rule.app)', not '\(app)'"
                continue
            }
            if let failed = rule.equals.sorted(by: { $0.key.description < $1.key.description }).first(where: {
                $0.key.lookup(payload) != $0.value
            }) {
                let found = failed.key.lookup(payload).map { JSONWriter.string($0, sortedKeys: true) } ?? "nothing"
                reasons[index] = "\(failed.key) is \(found), not \(JSONWriter.string(failed.value, sortedKeys: true))"
                continue
            }
            if let missing = rule.present.first(where: { $0.lookup(payload) == nil }) {
                reasons[index] = "\(missing) is absent"
                continue
            }
            matches.append(index)
        }
        let rank = { (i: Int) in (self.pushRules[i].priority, self.pushRules[i].specificity, -i) }
        guard let winner = matches.max(by: { rank($0) < rank($1) }) else {
            return try unmatched(route, candidates: pushRules.indices.map { pushCandidate($0, .noMatch(reasons[$0]!)) })
        }
        let candidates = pushRules.indices.map { index -> Candidate in
            if index == winner { return pushCandidate(index, .won) }
            if let why = reasons[index] { return pushCandidate(index, .noMatch(why)) }
            let w = pushRules[winner]
            let l = pushRules[index]
            let why =
                w.priority != l.priority
                ? "lower priority (\(l.priority) < \(w.priority))"
                : w.specificity != l.specificity
                    ? "fewer conditions (\(l.specificity) < \(w.specificity))" : "declared later"
            return pushCandidate(index, .lost(to: winner, because: why))
        }
        let rule = pushRules[winner]
        var parameters: [String: RouteParameter] = [:]
        for (name, path) in rule.parameters {
            switch path.lookup(payload) {
            case .string(let s)?: parameters[name] = .string(s)
            case .int(let i)?: parameters[name] = .int(i)
            case .float(let d)?: parameters[name] = .float(d)
            case nil, .null?: continue
            case let other?: parameters[name] = .string(JSONWriter.string(other, sortedKeys: true))
            }
        }
        return Resolution(
            destination: Destination(app: rule.app, screen: rule.screen, parameters: parameters),
            candidates: candidates
        )
    }

    private func pushCandidate(_ index: Int, _ verdict: Candidate.Verdict) -> Candidate {
        let rule = pushRules[index]
        let conditions =
            rule.equals.keys.map { "\($0) == \(JSONWriter.string(rule.equals[$0]!, sortedKeys: true))" }.sorted()
            + rule.present.map { "\($0) present" }
        return Candidate(
            rule: index,
            description: "push [\(conditions.joined(separator: ", "))] → \(rule.app)/\(rule.screen)",
            verdict: verdict
        )
    }

    private func unmatched(_ route: Route, candidates: [Candidate]) throws(RouteError) -> Resolution {
        guard var destination = fallback else { throw .unmatched(route.description) }
        destination.reason = "unmatched"
        return Resolution(destination: destination, candidates: candidates)
    }

    private func depth(_ value: JSONValue) -> Int {
        switch value {
        case .array(let values): 1 + (values.map(depth).max() ?? 0)
        case .object(let object): 1 + (object.values.map(depth).max() ?? 0)
        default: 0
        }
    }
}
