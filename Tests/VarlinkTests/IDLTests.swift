import Testing

@testable import Varlink

@Suite struct IDLParserTests {
    func parseError(_ text: String) -> String? {
        do {
            _ = try VarlinkInterface(parsing: text)
            return nil
        } catch { return error.description }
    }

    @Test func serviceInterfaceParsesWithDocs() throws {
        let interface = try VarlinkInterface(parsing: ServiceInterface.text)
        #expect(interface.name == "org.varlink.service")
        #expect(
            interface.documentation
                == "The Varlink Service Interface is provided by every varlink service. It\ndescribes the service and the interfaces it implements."
        )
        #expect(interface.members.count == 8)
        let getInfo = try #require(interface.method(named: "GetInfo"))
        #expect(getInfo.output.map(\.name) == ["vendor", "product", "version", "url", "interfaces"])
        #expect(getInfo.output.last?.type == .array(.string))
        #expect(interface.error(named: "PermissionDenied")?.parameters == [])
        #expect(
            interface.error(named: "MethodNotImplemented")?.documentation
                == "The interface defines the requested method, but the service does not\nimplement it."
        )
    }

    @Test func everyTypeForm() throws {
        let interface = try VarlinkInterface(
            parsing: """
                interface org.example.types
                type T (
                  # a comment inside a struct
                  a: ?[]?[string]?int,
                  e: (one, two),
                  s: [string](),
                  n: (x: (y: float)),
                  o: object,
                  r: U
                )
                type U (b: bool)
                method M() -> ()
                """
        )
        guard case .structure(let fields)? = interface.type(named: "T")?.type else {
            Issue.record("not a struct")
            return
        }
        #expect(
            fields.map(\.type) == [
                .optional(.array(.optional(.map(.optional(.int))))), .enumeration(["one", "two"]), .map(.structure([])),
                .structure([Field("x", .structure([Field("y", .float)]))]), .object, .named("U"),
            ]
        )
    }

    @Test func printsCanonicallyAndRoundTrips() throws {
        let text = """
            # Doc line one.
            #
            # Doc line three.
            interface org.example.print
            type   P(x:int,y : ?[]string)
            # A method.
            method Do (p: P, e: (a, b)) -> (ok: bool)
            error Bad(why:string)
            """
        let interface = try VarlinkInterface(parsing: text)
        #expect(
            interface.description == """
                # Doc line one.
                #
                # Doc line three.
                interface org.example.print

                type P (x: int, y: ?[]string)

                # A method.
                method Do(p: P, e: (a, b)) -> (ok: bool)

                error Bad (why: string)

                """
        )
        #expect(try VarlinkInterface(parsing: interface.description) == interface)
        let service = try VarlinkInterface(parsing: ServiceInterface.text)
        #expect(try VarlinkInterface(parsing: service.description) == service)
    }

    /// Found by the fuzzer: a doc line whose text starts with a combining mark, or holds "\r".
    @Test func documentationRoundTripsByteForByte() throws {
        for doc in ["#\u{07EB}he", "# \u{07EB}he", "#  two spaces", "# cr\r", "#"] {
            let interface = try VarlinkInterface(parsing: doc + "\ninterface a.b\nmethod M() -> ()\n")
            #expect(try VarlinkInterface(parsing: interface.description) == interface, "\(doc.debugDescription)")
        }
    }

    @Test func errorsGiveLineAndColumn() {
        #expect(parseError("") == "line 1, column 1: expected 'interface', found end of input")
        #expect(
            parseError("interface foo")
                == "line 1, column 11: 'foo' is not a valid interface name (reverse-domain, e.g. org.example.ping)"
        )
        #expect(
            parseError("interface org.example.x")
                == "line 1, column 24: an interface needs at least one method, type or error"
        )
        #expect(
            parseError("interface a.b\nmethod M(a int) -> ()")
                == "line 2, column 12: expected ',' or ')' after enum case 'a' (or ':' if it is a field), found 'i'"
        )
        #expect(
            parseError("interface a.b\nmethod M(a: int, b int) -> ()")
                == "line 2, column 20: expected ':' after field name 'b', found 'i'"
        )
        #expect(
            parseError("interface a.b\nmethod M() ()")
                == "line 2, column 12: expected '->' after the input of method 'M', found '('"
        )
        #expect(
            parseError("interface a.b\nmethod M(a: ??int) -> ()")
                == "line 2, column 14: '??' is not allowed: a type is nullable once"
        )
        #expect(parseError("interface a.b\nmethod M(a: Foo) -> ()") == "line 2, column 13: unknown type 'Foo'")
        #expect(
            parseError("interface a.b\nmethod M() -> ()\nmethod M() -> ()") == "line 3, column 8: 'M' is defined twice"
        )
        #expect(
            parseError("interface a.b\nmethod m() -> ()")
                == "line 2, column 8: 'm' is not a valid method name (an upper-case letter, then letters and digits)"
        )
        #expect(
            parseError("interface a.b\nfunc M() -> ()")
                == "line 2, column 1: expected 'type', 'method' or 'error', found 'func'"
        )
        #expect(parseError("interface a.b\nmethod M(a: int, a: int) -> ()") == "line 2, column 18: 'a' appears twice")
        #expect(
            parseError("interface a.b\nmethod M(a: [int]string) -> ()")
                == "line 2, column 14: map keys must be 'string', found 'int'"
        )
        #expect(
            parseError("interface a.b\nmethod M(a: int,) -> ()")
                == "line 2, column 17: expected a field name, found ')'"
        )
        #expect(
            parseError("interface a.b\ntype E (a, b: int)")
                == "line 2, column 13: an enum's cases have no types; found ':' after 'b'"
        )
        #expect(
            parseError("interface a.b\nmethod M(a__b: int) -> ()")
                == "line 2, column 10: 'a__b' is not a valid field name (a letter, then letters, digits and single underscores)"
        )
        #expect(
            parseError("interface a.b\nmethod M() -> (e, f)")
                == "line 2, column 15: the method's output must be a struct (name: type, …), not an enum"
        )
    }

    @Test func depthLimitIsExact() {
        func nested(_ depth: Int) -> String {
            // Each level of `[]` is one parseType; the method's struct and field add two more.
            "interface a.b\nmethod M(a: " + String(repeating: "[]", count: depth) + "int) -> ()"
        }
        #expect(parseError(nested(VarlinkInterface.maximumDepth - 2)) == nil)
        #expect(
            parseError(nested(VarlinkInterface.maximumDepth - 1))?.hasSuffix("types nested deeper than 64 levels")
                == true
        )
    }

    @Test func sizeLimitIsExact() {
        let head = "interface a.b\nmethod M() -> ()\n"
        let atLimit = head + String(repeating: "#", count: VarlinkInterface.maximumDescriptionSize - head.utf8.count)
        #expect(parseError(atLimit) == nil)
        #expect(parseError(atLimit + "#") == "line 1, column 1: interface text is larger than 1048576 bytes")
    }
}

@Suite struct TypeCheckerTests {
    let interface = try! VarlinkInterface(
        parsing: """
            interface org.example.check
            type P (x: int, y: int)
            method M(
              i: int, f: float, s: string, b: bool, o: object,
              e: (a, b), p: P, l: []int, m: [string]string, set: [string](), n: ?[]?int
            ) -> ()
            """
    )
    var fields: [Field] { interface.method(named: "M")!.input }
    let valid: [String: JSONValue] = [
        "i": 1, "f": 1, "s": "x", "b": true, "o": [:], "e": "a", "p": ["x": 1, "y": 2],
        "l": [1, 2], "m": ["k": "v"], "set": ["k": [:]], "n": [1, nil],
    ]

    func mismatch(_ change: (inout [String: JSONValue]) -> Void) -> String? {
        var parameters = valid
        change(&parameters)
        do {
            try interface.check(.object(parameters), against: fields)
            return nil
        } catch { return error.description }
    }

    @Test func acceptsValidValues() {
        #expect(mismatch { _ in } == nil)
        #expect(mismatch { $0["n"] = nil } == nil)  // absent optional
        #expect(mismatch { $0["n"] = .null } == nil)  // null optional
        #expect(mismatch { $0["i"] = 2.0 } == nil)  // integral float for int
        #expect(mismatch { $0["f"] = 2.5 } == nil)
    }

    @Test func namesThePathOfEachMismatch() {
        #expect(mismatch { $0["i"] = 1.5 } == "i: expected an int")
        #expect(mismatch { $0["f"] = "1" } == "f: expected a float")
        #expect(mismatch { $0["s"] = 1 } == "s: expected a string")
        #expect(mismatch { $0["b"] = 1 } == "b: expected a bool")
        #expect(mismatch { $0["o"] = [] } == "o: expected an object")
        #expect(mismatch { $0["e"] = "c" } == "e: expected one of a, b")
        #expect(mismatch { $0["p"] = ["x": 1] } == "p.y: missing")
        #expect(mismatch { $0["p"] = ["x": 1, "y": 2, "z": 3] } == "p.z: unknown field")
        #expect(mismatch { $0["l"] = [1, "2"] } == "l[1]: expected an int")
        #expect(mismatch { $0["m"] = ["k": 1] } == "m[\"k\"]: expected a string")
        #expect(mismatch { $0["set"] = ["k": 1] } == "set[\"k\"]: expected an object")
        #expect(mismatch { $0["n"] = [1, "x"] } == "n[1]: expected an int")
        #expect(mismatch { $0["s"] = nil } == "s: missing")
        #expect(mismatch { $0["s"] = .null } == "s: expected a string")
        #expect(mismatch { $0["extra"] = 1 } == "extra: unknown field")
    }

    @Test func parameterIsTheTopLevelField() {
        #expect(TypeMismatch(path: "p.y", message: "").parameter == "p")
        #expect(TypeMismatch(path: "l[1]", message: "").parameter == "l")
        #expect(TypeMismatch(path: "s", message: "").parameter == "s")
    }
}
