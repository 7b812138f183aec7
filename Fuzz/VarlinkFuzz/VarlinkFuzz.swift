import NIOCore
import NIOEmbedded
import Varlink
import VarlinkNIO

/// libFuzzer entry: every input goes through the three parsers that face untrusted bytes —
/// the NUL framing handler (in a real NIO pipeline, fed in two reads), the message decoder,
/// and the interface-definition parser (whose output must print and re-parse to itself).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    let channel = EmbeddedChannel(handler: VarlinkFramingHandler(maximumMessageSize: 4096, messageTimeout: nil))
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var frames: [ByteBuffer] = []
    for part in [bytes[..<split], bytes[split...]] {
        do { try channel.writeInbound(ByteBuffer(bytes: part)) } catch { break }
        while let frame = try? channel.readInbound(as: ByteBuffer.self) { frames.append(frame) }
    }
    _ = try? channel.finish()

    for frame in frames {
        let message = Array(frame.readableBytesView)
        if let call = try? VarlinkCall(decoding: message) {
            var encoded = call.encoded()
            encoded.removeLast()
            precondition((try? VarlinkCall(decoding: encoded)) == call, "call does not round-trip")
        }
        _ = try? VarlinkReply(decoding: message)
    }

    if let interface = try? VarlinkInterface(parsing: String(decoding: bytes, as: UTF8.self)) {
        let printed = interface.description
        guard let reparsed = try? VarlinkInterface(parsing: printed) else {
            preconditionFailure("printed interface does not parse:\n\(printed)")
        }
        precondition(reparsed == interface, "interface does not round-trip:\n\(printed)")
    }
    return 0
}
