import JSON
import Testing

@testable import CurtainCore

@Suite struct DeepLinkParsingTests {
    @Test func componentsAreDecodedOnceAfterSplitting() throws {
        let link = try DeepLink(parsing: "Shop://Product/a%2Fb/caf%C3%A9/%2541?ref=mail%20x&empty=&flag#frag")
        #expect(link.scheme == "shop")
        #expect(link.host == "product")
        #expect(link.segments == ["a/b", "café", "%41"])  // %2F stays inside; %25 decodes once
        #expect(link.queryValue("ref") == "mail x")
        #expect(link.queryValue("empty") == "")
        #expect(link.queryValue("flag") == "")
        #expect(link.queryValue("frag") == nil)
    }

    @Test func slashes() throws {
        #expect(try DeepLink(parsing: "shop://product/42/").segments == ["42"])
        #expect(try DeepLink(parsing: "shop://product//42").segments == ["", "42"])
        #expect(try DeepLink(parsing: "shop://product").segments == [])
        #expect(try DeepLink(parsing: "mailto:someone").segments == ["someone"])
        #expect(try DeepLink(parsing: "a+b.c-d://h/x?q=1+1").queryValue("q") == "1+1")
    }

    @Test func errors() {
        func message(_ url: String) -> String? {
            do {
                _ = try DeepLink(parsing: url)
                return nil
            } catch { return error.description }
        }
        #expect(message("no-scheme-here") == "invalid deep link 'no-scheme-here': it has no scheme (e.g. shop://…)")
        #expect(message("1shop://x") == "invalid deep link '1shop://x': '1shop' is not a valid scheme")
        #expect(
            message("shop://x/%zz")
                == "invalid deep link 'shop://x/%zz': '%zz' has a '%' that is not followed by two hex digits"
        )
        #expect(message("shop://x/%C3") == "invalid deep link 'shop://x/%C3': '%C3' does not decode to valid UTF-8")
        let atLimit = "shop://x/" + String(repeating: "a", count: DeepLink.maximumLength - 9)
        #expect(message(atLimit) == nil)
        #expect(message(atLimit + "a") == "the deep link is 8193 bytes, more than the limit of 8192")
    }
}

@Suite struct RoutePatternTests {
    func parameters(_ pattern: String, _ url: String) throws -> [String: RouteParameter]? {
        if case .matched(let p) = try RoutePattern(parsing: pattern).match(try DeepLink(parsing: url)) { return p }
        return nil
    }

    @Test func typedPlaceholders() throws {
        #expect(try parameters("shop://product/<int:id>", "shop://product/42") == ["id": .int(42)])
        #expect(try parameters("shop://product/<int:id>", "shop://product/42x") == nil)
        #expect(try parameters("shop://price/<float:p>", "shop://price/9.5") == ["p": .float(9.5)])
        #expect(
            try parameters("chat://thread/<uuid:t>", "chat://thread/123E4567-E89B-12D3-A456-426614174000")
                == ["t": .uuid("123e4567-e89b-12d3-a456-426614174000")]
        )
        #expect(try parameters("chat://thread/<uuid:t>", "chat://thread/not-a-uuid") == nil)
        #expect(try parameters("profile://user/<name>", "profile://user/J%C3%BCrgen") == ["name": .string("Jürgen")])
        #expect(try parameters("docs://page/<path:rest>", "docs://page/a/b%2Fc/d") == ["rest": .string("a/b/c/d")])
        #expect(try parameters("docs://page/<path:rest>", "docs://page") == nil)
        #expect(try parameters("profile://user/<name>", "profile://user//x") == nil)  // empty segment
    }

    @Test func mismatchReasons() throws {
        let pattern = try RoutePattern(parsing: "shop://product/<int:id>")
        #expect(
            pattern.match(try DeepLink(parsing: "shop://product/abc")) == .mismatch("segment 1 'abc' is not an int")
        )
        #expect(pattern.match(try DeepLink(parsing: "shop://cart/1")) == .mismatch("host 'cart' is not 'product'"))
        #expect(
            pattern.match(try DeepLink(parsing: "shop://product/1/2"))
                == .mismatch("the link has 2 path segments, the pattern 1")
        )
    }

    @Test func patternErrors() {
        func message(_ text: String) -> String? {
            do {
                _ = try RoutePattern(parsing: text)
                return nil
            } catch { return error.description }
        }
        #expect(message("shop:/x") == "invalid pattern 'shop:/x': it must start with scheme://host")
        #expect(
            message("shop://x/<date:d>")
                == "invalid pattern 'shop://x/<date:d>': unknown placeholder type 'date' (known: string, int, uuid, float, path)"
        )
        #expect(
            message("shop://x/<path:a>/b") == "invalid pattern 'shop://x/<path:a>/b': <path:a> must be the last segment"
        )
        #expect(
            message("shop://x/<a>/<int:a>") == "invalid pattern 'shop://x/<a>/<int:a>': placeholder 'a' appears twice"
        )
        #expect(message("shop://x/p<a>") == "invalid pattern 'shop://x/p<a>': 'p<a>' mixes a literal and a placeholder")
    }
}

@Suite struct RouteTableTests {
    let table = RouteTable(
        apps: [
            AppRoutes(name: "shop", screens: ["home", "product", "sale", "search"], defaultScreen: "home"),
            AppRoutes(name: "chat", screens: ["inbox", "thread"], defaultScreen: "inbox"),
        ],
        deepLinks: [
            DeepLinkRule(app: "shop", screen: "product", pattern: try! RoutePattern(parsing: "shop://product/<id>")),
            DeepLinkRule(
                app: "shop",
                screen: "product",
                pattern: try! RoutePattern(parsing: "shop://product/<int:id>"),
                query: ["ref": "referrer"]
            ),
            DeepLinkRule(app: "shop", screen: "sale", pattern: try! RoutePattern(parsing: "shop://product/sale")),
            DeepLinkRule(
                app: "shop",
                screen: "search",
                pattern: try! RoutePattern(parsing: "shop://product/<q>"),
                priority: 5
            ),
        ],
        pushRules: [
            PushRule(app: "chat", screen: "inbox", equals: [.init("aps.category"): "chat"]),
            PushRule(
                app: "chat",
                screen: "thread",
                equals: [.init("aps.category"): "chat"],
                present: [.init("target.thread")],
                parameters: ["thread": .init("target.thread"), "count": .init("badge")]
            ),
        ]
    )

    @Test func priorityFirst() throws {
        let r = try table.resolve(.deeplink("shop://product/42"))
        #expect(r.destination == Destination(app: "shop", screen: "search", parameters: ["q": .string("42")]))
        #expect(r.candidates[1].verdict == .lost(to: 3, because: "lower priority (0 < 5)"))
    }

    @Test func literalsThenTypedThenOrder() throws {
        var t = table
        t.deepLinks[3].priority = 0
        // "sale" is literal in rule 2: more literal segments win over every placeholder.
        let sale = try t.resolve(.deeplink("shop://product/sale"))
        #expect(sale.destination.screen == "sale")
        #expect(sale.candidates[0].verdict == .lost(to: 2, because: "fewer literal segments (1 < 2)"))
        // 42: the typed <int:id> beats untyped <id>, which beats the later untyped <q>.
        let typed = try t.resolve(.deeplink("shop://product/42?ref=mail"))
        #expect(
            typed.destination
                == Destination(
                    app: "shop",
                    screen: "product",
                    parameters: ["id": .int(42), "referrer": .string("mail")]
                )
        )
        #expect(typed.candidates[0].verdict == .lost(to: 1, because: "fewer typed placeholders (0 < 1)"))
        // abc: only untyped ones match; declaration order decides.
        let untyped = try t.resolve(.deeplink("shop://product/abc"))
        #expect(untyped.destination.parameters == ["id": .string("abc")])
        #expect(untyped.candidates[3].verdict == .lost(to: 0, because: "declared later"))
        #expect(untyped.candidates[1].verdict == .noMatch("segment 1 'abc' is not an int"))
    }

    @Test func normalGoesToTheDefaultScreen() throws {
        #expect(try table.resolve(.normal(app: "chat")).destination == Destination(app: "chat", screen: "inbox"))
        #expect(throws: RouteError.unknownApp("mail")) { try table.resolve(.normal(app: "mail")) }
    }

    @Test func pushRulesBySpecificity() throws {
        let payload: JSONValue = ["aps": ["category": "chat", "alert": "hi"], "target": ["thread": "t-1"], "badge": 3]
        let r = try table.resolve(.push(app: "chat", payload: payload))
        #expect(
            r.destination
                == Destination(app: "chat", screen: "thread", parameters: ["thread": .string("t-1"), "count": .int(3)])
        )
        #expect(r.candidates[0].verdict == .lost(to: 1, because: "fewer conditions (1 < 2)"))
        let plain = try table.resolve(.push(app: nil, payload: ["aps": ["category": "chat"]]))
        #expect(plain.destination.screen == "inbox")
        #expect(plain.candidates[1].verdict == .noMatch("target.thread is absent"))
    }

    @Test func unmatchedGoesToTheFallbackOrFails() throws {
        #expect(throws: RouteError.unmatched("deep link 'shop://cart'")) { try table.resolve(.deeplink("shop://cart")) }
        var t = table
        t.fallback = Destination(app: "shop", screen: "home")
        let r = try t.resolve(.deeplink("shop://cart"))
        #expect(r.destination == Destination(app: "shop", screen: "home", reason: "unmatched"))
        #expect(r.candidates.allSatisfy { if case .noMatch = $0.verdict { true } else { false } })
    }

    @Test func aNulInAParameterIsRefused() throws {
        // %00 in a path placeholder and in a mapped query item; \u0000 in a push value.
        #expect(throws: RouteError.nulInParameter("q")) { try table.resolve(.deeplink("shop://product/4%002")) }
        #expect(throws: RouteError.nulInParameter("referrer")) {
            var t = table
            t.deepLinks[3].priority = 0
            return try t.resolve(.deeplink("shop://product/42?ref=a%00b"))
        }
        let payload: JSONValue = ["aps": ["category": "chat"], "target": ["thread": "t\u{0}1"]]
        #expect(throws: RouteError.nulInParameter("thread")) { try table.resolve(.push(app: nil, payload: payload)) }
        // Anything else decoded stays: %01 is an ordinary (if odd) character.
        #expect(
            try table.resolve(.deeplink("shop://product/4%012")).destination.parameters == ["q": .string("4\u{1}2")]
        )
        #expect(RouteError.nulInParameter("q").description.contains("parameter 'q' contains a NUL byte"))
    }

    @Test func payloadLimits() {
        let big = JSONValue.object(["s": .string(String(repeating: "x", count: Route.maximumPayloadSize))])
        #expect(
            throws: RouteError.tooLong(
                what: "push payload",
                length: Route.maximumPayloadSize + 8,
                limit: Route.maximumPayloadSize
            )
        ) {
            try table.resolve(.push(app: nil, payload: big))
        }
        var deep: JSONValue = [:]
        for _ in 0..<(Route.maximumPayloadDepth - 1) { deep = ["a": deep] }
        // At the limit the payload is accepted (and then matches no rule).
        #expect(throws: RouteError.unmatched("push notification")) { try table.resolve(.push(app: nil, payload: deep)) }
        deep = ["a": deep]
        #expect(throws: RouteError.tooDeep(what: "push payload", limit: Route.maximumPayloadDepth)) {
            try table.resolve(.push(app: nil, payload: deep))
        }
    }
}

@Suite struct RouteValidationTests {
    func table(_ patterns: [(String, Int)], screens: [String] = ["a"]) -> RouteTable {
        RouteTable(
            apps: [AppRoutes(name: "app", screens: screens, defaultScreen: "a")],
            deepLinks: patterns.map {
                DeepLinkRule(app: "app", screen: "a", pattern: try! RoutePattern(parsing: $0.0), priority: $0.1)
            }
        )
    }

    @Test func cleanTableHasNoProblems() {
        #expect(
            table([("x://p/sale", 0), ("x://p/<int:id>", 0), ("x://p/<id>", 0), ("x://docs/<path:rest>", 0)]).problems()
                == []
        )
    }

    @Test func shadowedRules() {
        // A later untyped rule of equal rank under an earlier one that takes the same links.
        #expect(table([("x://p/<id>", 0), ("x://p/<name>", 0)]).problems() == [.shadowed(rule: 1, by: 0)])
        // A higher priority catch-all shadows a literal declared after it.
        #expect(table([("x://p/<id>", 1), ("x://p/sale", 0)]).problems() == [.shadowed(rule: 1, by: 0)])
        // A path tail with priority covers deeper fixed patterns.
        #expect(
            table([("x://docs/<path:rest>", 1), ("x://docs/a/<int:n>", 0)]).problems() == [.shadowed(rule: 1, by: 0)]
        )
        // A typed rule does not cover an untyped one (it takes fewer links) and is not shadowed by it.
        #expect(table([("x://p/<int:id>", 0), ("x://p/<id>", 0)]).problems() == [])
        // An int literal under a higher-ranked <int:…>.
        #expect(table([("x://p/<int:id>", 1), ("x://p/42", 0)]).problems() == [.shadowed(rule: 1, by: 0)])
    }

    @Test func ambiguousRules() {
        // Equal rank, overlapping, neither covers the other: x://p/1/2 matches both.
        #expect(table([("x://p/<a>/2", 0), ("x://p/1/<b>", 0)]).problems() == [.ambiguous(0, 1)])
        // A priority settles it.
        #expect(table([("x://p/<a>/2", 1), ("x://p/1/<b>", 0)]).problems() == [])
        // Disjoint: no link matches both.
        #expect(table([("x://p/<int:a>/2", 0), ("x://p/<uuid:b>/2", 0)]).problems() == [])
    }

    @Test func unknownAppsAndScreens() {
        let t = RouteTable(
            apps: [AppRoutes(name: "app", screens: ["a"], defaultScreen: "b")],
            deepLinks: [DeepLinkRule(app: "nope", screen: "a", pattern: try! RoutePattern(parsing: "x://y"))],
            pushRules: [PushRule(app: "app", screen: "zzz")],
            fallback: Destination(app: "app", screen: "a")
        )
        #expect(
            t.problems().map(\.description) == [
                "deep link rule 1 names unknown app 'nope'",
                "push rule 1 names screen 'zzz', which app 'app' does not have",
                "the default screen of 'app' names screen 'b', which app 'app' does not have",
            ]
        )
    }
}
