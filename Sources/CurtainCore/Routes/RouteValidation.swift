/// What is wrong with a route table: rules that can never win, rules whose order silently
/// decides, and references to apps or screens that do not exist.
public enum RouteProblem: Sendable, Hashable, CustomStringConvertible {
    /// What names an app or a screen.
    public enum Reference: Sendable, Hashable, CustomStringConvertible {
        case deepLink(Int)
        case push(Int)
        case fallback
        case defaultScreen(app: String)
        /// How problems name it: rules counted from 1.
        public var description: String {
            switch self {
            case .deepLink(let i): "deep link rule \(i + 1)"
            case .push(let i): "push rule \(i + 1)"
            case .fallback: "the fallback"
            case .defaultScreen(let app): "the default screen of '\(app)'"
            }
        }
    }

    /// Deep-link rule `rule` never wins: rule `by` matches every link it matches and ranks higher.
    case shadowed(rule: Int, by: Int)
    /// Two deep-link rules of equal rank can match the same link: only their order decides.
    case ambiguous(Int, Int)
    /// A rule or the fallback names an app the table does not know.
    case unknownApp(Reference, app: String)
    /// A rule, the fallback or an app's default screen names a screen its app does not have.
    case unknownScreen(Reference, app: String, screen: String)

    /// A sentence saying what is wrong and, for ambiguity, what to do; rules counted from 1.
    public var description: String {
        switch self {
        case .shadowed(let rule, let by):
            "deep link rule \(rule + 1) can never win: rule \(by + 1) matches every link it matches and ranks higher"
        case .ambiguous(let a, let b):
            "deep link rules \(a + 1) and \(b + 1) can match the same link with equal rank; give one a priority"
        case .unknownApp(let reference, let app): "\(reference) names unknown app '\(app)'"
        case .unknownScreen(let reference, let app, let screen):
            "\(reference) names screen '\(screen)', which app '\(app)' does not have"
        }
    }
}

extension RouteTable {
    /// Every problem, in rule order. An empty list means every rule can win and no two rules
    /// depend on their order.
    public func problems() -> [RouteProblem] {
        var problems: [RouteProblem] = []
        func check(_ reference: RouteProblem.Reference, _ app: String, _ screen: String) {
            guard let routes = apps[app] else { return problems.append(.unknownApp(reference, app: app)) }
            if !routes.screens.contains(screen) { problems.append(.unknownScreen(reference, app: app, screen: screen)) }
        }
        for (i, rule) in deepLinks.enumerated() { check(.deepLink(i), rule.app, rule.screen) }
        for (i, rule) in pushRules.enumerated() { check(.push(i), rule.app, rule.screen) }
        if let fallback { check(.fallback, fallback.app, fallback.screen) }
        for (app, routes) in apps.sorted(by: { $0.key < $1.key }) where !routes.screens.contains(routes.defaultScreen) {
            problems.append(.unknownScreen(.defaultScreen(app: app), app: app, screen: routes.defaultScreen))
        }

        for i in deepLinks.indices {
            for j in deepLinks.indices where j != i {
                let p = deepLinks[i].pattern
                let q = deepLinks[j].pattern
                if q.covers(p) && rankKey(j) > rankKey(i) {
                    problems.append(.shadowed(rule: i, by: j))
                    break
                }
            }
        }
        let shadowed = Set(problems.compactMap { if case .shadowed(let rule, _) = $0 { rule } else { nil } })
        for i in deepLinks.indices where !shadowed.contains(i) {
            for j in deepLinks.indices where j > i && !shadowed.contains(j) {
                let a = deepLinks[i]
                let b = deepLinks[j]
                if (a.priority, a.pattern.literalCount, a.pattern.typedCount) == (
                    b.priority, b.pattern.literalCount, b.pattern.typedCount
                ),
                    a.pattern.overlaps(b.pattern)
                {
                    problems.append(.ambiguous(i, j))
                }
            }
        }
        return problems
    }

    private func rankKey(_ index: Int) -> (Int, Int, Int, Int) {
        let rule = deepLinks[index]
        return (rule.priority, rule.pattern.literalCount, rule.pattern.typedCount, -index)
    }
}

extension RoutePattern {
    private var hasPathTail: Bool {
        if case .placeholder(_, .path)? = segments.last { true } else { false }
    }

    /// True when `self` matches every link that `other` matches.
    func covers(_ other: RoutePattern) -> Bool {
        guard scheme == other.scheme, host == other.host else { return false }
        let fixed = hasPathTail ? segments.count - 1 : segments.count
        if hasPathTail {
            // other's links always have at least other.segments.count segments (a tail takes one
            // or more), and self's tail takes whatever follows its fixed ones.
            guard other.segments.count >= segments.count else { return false }
        } else {
            guard !other.hasPathTail, other.segments.count == segments.count else { return false }
        }
        for k in 0..<fixed where !Self.segment(segments[k], covers: other.segments[k]) { return false }
        return true
    }

    /// True when some link is matched by both patterns.
    func overlaps(_ other: RoutePattern) -> Bool {
        guard scheme == other.scheme, host == other.host else { return false }
        let lengthsMeet: Bool =
            switch (hasPathTail, other.hasPathTail) {
            case (false, false): segments.count == other.segments.count
            case (true, false): other.segments.count >= segments.count
            case (false, true): segments.count >= other.segments.count
            case (true, true): true
            }
        guard lengthsMeet else { return false }
        let fixed = min(
            hasPathTail ? segments.count - 1 : segments.count,
            other.hasPathTail ? other.segments.count - 1 : other.segments.count
        )
        for k in 0..<fixed where !Self.segment(segments[k], meets: other.segments[k]) { return false }
        return true
    }

    private static func segment(_ a: Segment, covers b: Segment) -> Bool {
        switch (a, b) {
        case (.literal(let x), .literal(let y)): x == y
        case (.placeholder(_, .string), _): true
        case (.placeholder(_, let type), .literal(let literal)): RouteParameter(literal, as: type) != nil
        case (.placeholder(_, let t), .placeholder(_, let u)): t == u || (t == .float && u == .int)
        case (.literal, .placeholder): false
        }
    }

    private static func segment(_ a: Segment, meets b: Segment) -> Bool {
        switch (a, b) {
        case (.literal(let x), .literal(let y)): x == y
        case (.placeholder(_, let type), .literal(let literal)), (.literal(let literal), .placeholder(_, let type)):
            RouteParameter(literal, as: type) != nil
        case (.placeholder(_, let t), .placeholder(_, let u)):
            t == u || t == .string || u == .string || Set([t, u]) == [.int, .float]
        }
    }
}
