import Foundation
import Synchronization
import Varlink

/// The server side of org.varlink.certification: each client must call Start, Test01 … Test11,
/// End in order, passing back exactly what the previous reply gave it.
final class CertificationServer: Sendable {
    /// The next method each client id must call.
    private let next = Mutex<[String: String]>([:])

    func interface() -> InterfaceBuilder {
        var builder = InterfaceBuilder(CertificationInterface.text)
        builder.rawMethod("Start") { [self] request, reply in
            let id = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            next.withLock { $0[id] = "Test01" }
            try await reply(["client_id": .string(id)], false)
        }
        step("Test01", then: "Test02", in: &builder) { _, _ in ["bool": true] }
        step("Test02", then: "Test03", in: &builder) { p, _ in
            try self.want(p["bool"] == true, ["bool": true], p)
            return ["int": 1]
        }
        step("Test03", then: "Test04", in: &builder) { p, _ in
            try self.want(p["int"] == 1, ["int": 1], p)
            return ["float": 1.0]
        }
        step("Test04", then: "Test05", in: &builder) { p, _ in
            try self.want(Self.number(p["float"]) == 1.0, ["float": 1.0], p)
            return ["string": "ping"]
        }
        step("Test05", then: "Test06", in: &builder) { p, _ in
            try self.want(p["string"] == "ping", ["string": "ping"], p)
            return ["bool": false, "int": 2, "float": .float(Expected.pi), "string": "a lot of string"]
        }
        step("Test06", then: "Test07", in: &builder) { p, _ in
            let ok =
                p["bool"] == false && p["int"] == 2 && Self.number(p["float"]) == Expected.pi
                && p["string"] == "a lot of string"
            try self.want(ok, Expected.struct06, p)
            return ["struct": Expected.struct06]
        }
        step("Test07", then: "Test08", in: &builder) { p, _ in
            guard case .object(let s)? = p["struct"] else { throw self.mismatch(["struct": Expected.struct06], p) }
            let ok =
                s["bool"] == false && s["int"] == 2 && Self.number(s["float"]) == Expected.pi
                && s["string"] == "a lot of string"
            try self.want(ok, ["struct": Expected.struct06], p)
            return ["map": Expected.map]
        }
        step("Test08", then: "Test09", in: &builder) { p, _ in
            try self.want(p["map"] == Expected.map, ["map": Expected.map], p)
            return ["set": Expected.set]
        }
        step("Test09", then: "Test10", in: &builder) { p, _ in
            try self.want(p["set"] == Expected.set, ["set": Expected.set], p)
            var myType = Expected.myType
            if case .object(var object) = myType {
                object["nullable"] = nil
                object["nullable_array_struct"] = nil
                myType = .object(object)
            }
            return ["mytype": myType]
        }
        builder.rawMethod("Test10") { [self] request, reply in
            let p = request.call.parameters
            try advance(p, from: "Test10", to: "Test11")
            var got = p["mytype"] ?? .null
            // Optional fields may be sent as null or left out.
            if case .object(var object) = got {
                for key in ["nullable", "nullable_array_struct"] where object[key] == .null { object[key] = nil }
                got = .object(object)
            }
            try want(request.call.more && got == Expected.myType, ["more": true, "mytype": Expected.myType], p)
            for (i, text) in Expected.replies.enumerated() {
                try await reply(["string": .string(text)], i < Expected.replies.count - 1)
            }
        }
        builder.rawMethod("Test11") { [self] request, reply in
            let p = request.call.parameters
            try advance(p, from: "Test11", to: "End")
            try want(
                request.call.oneway && p["last_more_replies"] == .array(Expected.replies.map { .string($0) }),
                ["oneway": true, "last_more_replies": .array(Expected.replies.map { .string($0) })],
                p
            )
            try await reply([:], false)
        }
        builder.rawMethod("End") { [self] request, reply in
            try advance(request.call.parameters, from: "End", to: nil)
            try await reply(["all_ok": true], false)
        }
        return builder
    }

    private func step(
        _ name: String,
        then nextMethod: String,
        in builder: inout InterfaceBuilder,
        _ body: @escaping @Sendable ([String: JSONValue], VarlinkService.Request) throws -> [String: JSONValue]
    ) {
        builder.rawMethod(name) { [self] request, reply in
            try advance(request.call.parameters, from: name, to: nextMethod)
            try await reply(try body(request.call.parameters, request), false)
        }
    }

    /// Checks the client id and the call order, and moves the client on.
    private func advance(_ parameters: [String: JSONValue], from method: String, to nextMethod: String?) throws {
        guard case .string(let id)? = parameters["client_id"] else {
            throw VarlinkError("org.varlink.certification.ClientIdError")
        }
        try next.withLock { next in
            guard let expected = next[id] else { throw VarlinkError("org.varlink.certification.ClientIdError") }
            guard expected == method else {
                next[id] = nil
                throw VarlinkError(
                    "org.varlink.certification.CertificationError",
                    [
                        "wants": ["method": .string("org.varlink.certification.\(expected)")],
                        "got": ["method": .string("org.varlink.certification.\(method)")],
                    ]
                )
            }
            next[id] = nextMethod
        }
    }

    private func want(_ ok: Bool, _ wants: JSONValue, _ got: [String: JSONValue]) throws {
        if !ok { throw mismatch(wants, got) }
    }

    private func mismatch(_ wants: JSONValue, _ got: [String: JSONValue]) -> VarlinkError {
        if case .string(let id)? = got["client_id"] { next.withLock { _ = $0.removeValue(forKey: id) } }
        return VarlinkError("org.varlink.certification.CertificationError", ["wants": wants, "got": .object(got)])
    }

    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .int(let i)?: Double(i)
        case .float(let d)?: d
        default: nil
        }
    }
}
