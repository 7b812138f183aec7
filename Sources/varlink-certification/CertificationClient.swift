import Varlink
import VarlinkNIO

/// The client side: drives a certification server through every step, printing each reply.
/// Returns normally only if the server said `all_ok`.
enum CertificationClient {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func run(path: String) async throws {
        try await VarlinkConnection.withConnection(to: path) { c in
            let m = "org.varlink.certification."
            let id = try await c.call(m + "Start")["client_id"] ?? .null
            print("client_id:", JSONWriter.string(id))
            var r = try await c.call(m + "Test01", ["client_id": id])
            log("Test01", r)
            r = try await c.call(m + "Test02", ["client_id": id, "bool": r["bool"] ?? .null])
            log("Test02", r)
            r = try await c.call(m + "Test03", ["client_id": id, "int": r["int"] ?? .null])
            log("Test03", r)
            r = try await c.call(m + "Test04", ["client_id": id, "float": r["float"] ?? .null])
            log("Test04", r)
            r = try await c.call(m + "Test05", ["client_id": id, "string": r["string"] ?? .null])
            log("Test05", r)
            r = try await c.call(
                m + "Test06",
                [
                    "client_id": id, "bool": r["bool"] ?? .null, "int": r["int"] ?? .null,
                    "float": r["float"] ?? .null, "string": r["string"] ?? .null,
                ]
            )
            log("Test06", r)
            r = try await c.call(m + "Test07", ["client_id": id, "struct": r["struct"] ?? .null])
            log("Test07", r)
            r = try await c.call(m + "Test08", ["client_id": id, "map": r["map"] ?? .null])
            log("Test08", r)
            r = try await c.call(m + "Test09", ["client_id": id, "set": r["set"] ?? .null])
            log("Test09", r)
            var strings: [JSONValue] = []
            for try await reply in c.callMore(m + "Test10", ["client_id": id, "mytype": r["mytype"] ?? .null]) {
                log("Test10", reply)
                strings.append(reply["string"] ?? .null)
            }
            try c.oneway(m + "Test11", ["client_id": id, "last_more_replies": .array(strings)])
            print("Test11: (oneway)")
            r = try await c.call(m + "End", ["client_id": id])
            log("End", r)
            guard r["all_ok"] == true else { throw Failure(description: "End did not return all_ok: true") }
        }
        print("Certification passed")
    }

    private static func log(_ step: String, _ reply: [String: JSONValue]) {
        print("\(step):", JSONWriter.string(.object(reply), sortedKeys: true))
    }
}
