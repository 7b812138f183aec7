import Foundation
import Testing

@testable import Varlink

@Suite struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }
    func error(_ text: String) -> String? {
        do {
            _ = try JSONParser.parse(Array(text.utf8))
            return nil
        } catch { return error.description }
    }

    @Test func values() throws {
        #expect(
            try parse(#" {"a": [1, -2.5e1, true, false, null, "x"], "b": {}} "#)
                == ["a": [1, -25.0, true, false, nil, "x"], "b": [:]]
        )
        #expect(try parse("9223372036854775807") == .int(Int64.max))
        #expect(try parse("9223372036854775808") == .float(9_223_372_036_854_775_808))  // beyond Int64: a float
        #expect(try parse("1.0") == .float(1))
        #expect(try parse("-0") == .int(0))
    }

    @Test func stringEscapes() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        #expect(try parse(#""\u00e9\ud83d\ude00""#) == .string("é😀"))
        #expect(try parse("\"é\"") == .string("é"))
    }

    @Test func rejectsWhatRFC8259Rejects() {
        #expect(error("") == "JSON syntax error at byte 0: unexpected end of input")
        #expect(error("{\"a\" 1}") == "JSON syntax error at byte 5: expected ':'")
        #expect(error("[1,]") == "JSON syntax error at byte 3: unexpected character")
        #expect(error("01") == "JSON syntax error at byte 1: unexpected bytes after the value")
        #expect(error("1.") == "JSON syntax error at byte 2: invalid number")
        #expect(error("\"a\nb\"") == "JSON syntax error at byte 2: control character in a string")
        #expect(error(#""\ud800""#) == "JSON syntax error at byte 7: unpaired surrogate")
        #expect(error(#""\x""#) == "JSON syntax error at byte 3: invalid escape")
        #expect(error("nul") == "JSON syntax error at byte 0: unexpected end of input")
        #expect(error("1e999") == "JSON syntax error at byte 0: number out of range")
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }  // invalid UTF-8
    }

    @Test func depthLimitIsExact() {
        let ok =
            String(repeating: "[", count: JSONParser.maximumDepth)
            + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(error(ok) == nil)
        #expect(error("[" + ok + "]")?.hasSuffix("nested deeper than 128 levels") == true)
    }

    /// Agrees with Foundation's parser where both see the same kind (Foundation reads 1e3 or
    /// 1.0 as an integer; we keep what was written: a float).
    @Test func agreesWithFoundation() throws {
        let text = #"{"s":"x\u0041","n":[0,-1,2.5,-0.125],"o":{"k":[{}]},"b":true,"z":null}"#
        let ours = try parse(text)
        let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(ours == theirs)
        #expect(try parse(JSONWriter.string(ours)) == ours)
    }
}
