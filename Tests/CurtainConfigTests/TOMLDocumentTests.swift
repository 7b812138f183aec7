import CurtainTestKit
import Foundation
import JSON
import Testing

@testable import CurtainConfig

/// The configuration's own TOML parser (no Foundation in curtaind), checked against Python's
/// tomllib on the same texts: every valid document reads to the same tree, every invalid one
/// is refused by both.
@Suite struct TOMLDocumentTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let shipped = directory.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        "config/curtain.toml"
    ).path

    static let valid: [String] = [
        // Keys: bare, quoted, dotted, with spaces around dots; empty quoted key.
        "a = 1\nb-c_d = 2\n1234 = 3\n\"quoted key\" = 4\n'literal.key' = 5\nx . y . z = 6\n\"\" = 7\n",
        // Every string form and escape; trimmed first newline; line-ending backslash; quotes before the end.
        #"""
        basic = "tab\there \"q\" \\ \u00e9 \U0001F600 \b\f\n\r"
        literal = 'C:\Users\nobody'
        multi = """
        one
        two"""
        folded = """\
               The quick \
               brown fox.\
               """
        quotes = """"one" and ""two"""""
        lit_multi = '''
        raw \n text
        '''
        lit_quotes = ''''that's'''''
        crlf = "ok"
        """#,
        // Integers in four bases, with underscores and signs; floats of every form.
        "i1 = +99\ni2 = -17\ni3 = 0\ni4 = 1_000_000\nh = 0xDEAD_beef\no = 0o755\nb = 0b1101_0101\n"
            + "max = 9223372036854775807\nmin = -9223372036854775808\n"
            + "f1 = 1.0\nf2 = -0.01\nf3 = 5e+22\nf4 = 1e06\nf5 = -2E-2\nf6 = 6.626e-34\nf7 = 224_617.445_991\nf8 = -0.0\nf9 = 0e0\n",
        // Booleans, arrays (mixed, nested, multi-line with comments and a trailing comma).
        "t = true\nf = false\na = [ 1, 2, 3 ]\nm = [ \"x\", 1, 1.5, [true], {k = 1} ]\nn = [\n  1, # one\n  2,\n  # nothing\n]\ne = []\n",
        // Tables, implicit parents defined later, sub-tables of dotted tables, arrays of tables.
        """
        # a comment
        [a.b.c]
        x = 1
        [a]   # defines a, created implicitly above
        y = 2
        [fruit]
        apple.color = "red"
        apple.taste.sweet = true
        [fruit.apple.texture]
        smooth = true
        [[products]]
        name = "Hammer"
        [[products]]
        [[products]]
        name = "Nail"
        [[fruits]]
        name = "apple"
        [fruits.physical]
        color = "red"
        [[fruits.varieties]]
        name = "red delicious"
        [[fruits]]
        name = "banana"
        [[fruits.varieties]]
        name = "plantain"
        [ spaced . header ]
        "quoted.part" = 1
        """,
        // Inline tables, nested and with dotted keys; windows line ends; a file without a final newline.
        "point = { x = 1, y = 2 }\nanimal = { type.name = \"pug\" }\nempty = {}\nnested = { a = { b = [1, { c = 2 }] } }\r\ncr = 1",
        // Whitespace and comments everywhere they may be.
        "\n\n   # indented comment\n\t key = \"value\"   # trailing\n  [ table ]  # header comment\n  k = 1\n",
    ]

    static let invalid: [String] = [
        "a = 1\na = 2\n",  // duplicate key
        "[a]\n[a]\n",  // table twice
        "[a]\nb = 1\n[a.b]\n",  // value then table
        "a = [1]\n[[a]]\n",  // static array then array of tables
        "[[a]]\n[a]\n",  // array of tables then table
        "[fruit]\napple.color = 'red'\n[fruit.apple]\n",  // header on a dotted table
        "[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n",  // dotted key into a header's table
        "a = {x = 1}\na.y = 2\n",  // inline tables are closed
        "a = {x = 1}\n[a.b]\n",
        "a = {x = 1,}\n",  // trailing comma in an inline table
        "a = {x = 1,\n y = 2}\n",  // inline table over two lines
        "a = \"unterminated\n",
        "a = 'unterminated\n",
        "a = \"\"\"never closed\n",
        "a = \"\\q\"\n",  // unknown escape
        "a = \"\\uD800\"\n",  // a surrogate is no scalar
        "a = \"\\u12\"\n",
        "a = 01\n", "a = 1__0\n", "a = _1\n", "a = 1_\n", "a = +0x10\n", "a = 0xG\n",
        "a = 1.\n", "a = .5\n", "a = 1.e5\n", "a = 1e\n", "a = 1_.5\n", "a = 03.14\n",
        "a = tru\n", "a = TRUE\n", "a = \n", "a\n", "= 1\n", "a = 1 b = 2\n",
        "[a\n", "[[a]\n", "[]\n", "a.=1\n", "a = [1 2]\n", "a = [1,,2]\n",
        "a = \"bell\u{7}\"\n",  // control character in a string
        "# bell \u{7}\n",  // in a comment
        "a = 1\rb = 2\n",  // a bare CR is no line end
        "a = 1979-13-01\n", "a = 07:61:00\n",
    ]

    /// The reference's result for each text: the document, or nil when it refused it.
    static func reference(_ texts: [String]) async throws -> [JSONValue?] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "curtain-toml-\(getpid())-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (index, text) in texts.enumerated() {
            let path = directory.appendingPathComponent("\(index).toml").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let (status, stdout, stderr) = try await TestProcess.run(
            "/usr/bin/python3",
            [Self.directory.appendingPathComponent("toml_reference.py").path] + paths,
            within: 30
        )
        #expect(status == 0, "\(stderr)")
        return try stdout.split(separator: "\n").map { line in
            let result = try JSONParser.parse(Array(line.utf8))
            return result["ok"]
        }
    }

    @Test func validDocumentsReadAsTomllibReadsThem() async throws {
        let texts = Self.valid + [try String(contentsOfFile: Self.shipped, encoding: .utf8)]
        let expected = try await Self.reference(texts)
        #expect(expected.count == texts.count)
        for (text, reference) in zip(texts, expected) {
            #expect(reference != nil, "tomllib refused a case meant to be valid:\n\(text)")
            do {
                #expect(try TOMLDocument.parse(text) == reference, "\(text)")
            } catch {
                Issue.record("refused at \(error.line):\(error.column): \(error.message)\n\(text)")
            }
        }
    }

    @Test func invalidDocumentsAreRefusedAsTomllibRefusesThem() async throws {
        let expected = try await Self.reference(Self.invalid)
        for (text, reference) in zip(Self.invalid, expected) {
            #expect(reference == nil, "tomllib accepted a case meant to be invalid:\n\(text)")
            #expect(throws: TOMLDocument.SyntaxError.self, "\(text.debugDescription)") { try TOMLDocument.parse(text) }
        }
    }

    /// Integers are Int64 (tomllib's are unbounded): one past either end is refused.
    @Test func integersAreInt64() throws {
        #expect(
            try TOMLDocument.parse("a = 9223372036854775807\nb = -9223372036854775808\n") == [
                "a": .int(.max), "b": .int(.min),
            ]
        )
        #expect(throws: TOMLDocument.SyntaxError.self) { try TOMLDocument.parse("a = 9223372036854775808\n") }
        #expect(throws: TOMLDocument.SyntaxError.self) { try TOMLDocument.parse("a = -9223372036854775809\n") }
    }

    @Test func datesAndSpecialFloats() throws {
        let document = try TOMLDocument.parse(
            """
            odt = 1979-05-27T07:32:00Z
            odt2 = 1979-05-27 00:32:00.999999-07:00
            ldt = 1979-05-27T07:32:00
            ld = 1979-05-27
            lt = 00:32:00.5
            pinf = +inf
            ninf = -inf
            nan = nan
            """
        )
        #expect(document["odt"] == "1979-05-27T07:32:00Z")
        #expect(document["odt2"] == "1979-05-27 00:32:00.999999-07:00")
        #expect(document["ldt"] == "1979-05-27T07:32:00")
        #expect(document["ld"] == "1979-05-27")
        #expect(document["lt"] == "00:32:00.5")
        #expect(document["pinf"] == .float(.infinity))
        #expect(document["ninf"] == .float(-.infinity))
        if case .float(let value)? = document["nan"] { #expect(value.isNaN) } else { Issue.record("nan") }
    }

    @Test func errorsCarryTheirLineAndColumn() {
        func position(_ text: String) -> (Int, Int)? {
            do {
                _ = try TOMLDocument.parse(text)
                return nil
            } catch { return (error.line, error.column) }
        }
        #expect(position("[daemon]\nsocket = \"unterminated\n")! == (2, 23))
        #expect(position("a = 1\nb = 2\na = 3\n")! == (3, 1))
        #expect(position("a = 1\n  x = é é\n")! == (2, 7))  // columns count characters
    }

    /// `TOMLDocument.maximumDepth` nested arrays or inline tables read; one more is refused.
    @Test func nestingIsBoundedAtItsLimit() throws {
        let limit = TOMLDocument.maximumDepth
        func arrays(_ depth: Int) -> String {
            "a = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        }
        func tables(_ depth: Int) -> String {
            "a = " + String(repeating: "{b = ", count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
        }
        _ = try TOMLDocument.parse(arrays(limit))
        _ = try TOMLDocument.parse(tables(limit))
        #expect(throws: TOMLDocument.SyntaxError.self) { try TOMLDocument.parse(arrays(limit + 1)) }
        #expect(throws: TOMLDocument.SyntaxError.self) { try TOMLDocument.parse(tables(limit + 1)) }
    }
}
