import CurtainCore

/// An app's systemd unit as configured: `shop.service`, or a template whose instance is the
/// destination's screen, `shop@{screen}.service`. Only names systemd itself accepts — letters,
/// digits and `:-_.\` — so a name can never form a path (no `/`), reach a shell or smuggle a
/// second argument; it travels to systemd as one D-Bus string and nothing else.
public struct UnitName: Sendable, Hashable, CustomStringConvertible {
    /// systemd's UNIT_NAME_MAX (256) less its NUL: longer names are refused by systemd too.
    public static let maximumLength = 255
    /// The only unit type an app can be: a service.
    public static let suffix = ".service"
    static let placeholder = "{screen}"

    /// The name as configured.
    public let configured: String
    /// The part before `@` (or before `.service`).
    public let prefix: String
    /// nil: a plain unit; `.screen`: the template's instance is the screen; `.fixed`: a
    /// configured instance (`shop@kiosk.service`).
    public let instance: Instance?

    public enum Instance: Sendable, Hashable {
        case screen
        case fixed(String)
    }

    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public var description: String { configured }

    /// Parses and checks a configured name; the error says what is wrong with it.
    public init(_ text: String) throws(Invalid) {
        configured = text
        guard text.utf8.count <= Self.maximumLength else {
            throw Invalid(message: "'\(text.prefix(40))…' is longer than \(Self.maximumLength) bytes (systemd's limit)")
        }
        guard text.hasSuffix(Self.suffix) else {
            throw Invalid(message: "'\(text)' is not a service: an app's unit ends in \(Self.suffix)")
        }
        let stem = String(text.dropLast(Self.suffix.count))
        let parts = stem.split(separator: "@", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2 else { throw Invalid(message: "'\(text)' has more than one '@'") }
        prefix = parts[0]
        try Self.check(prefix, in: text, what: "name")
        guard let first = prefix.unicodeScalars.first, Self.isAlphanumeric(first) else {
            throw Invalid(message: "'\(text)' must begin with a letter or a digit")
        }
        if parts.count == 2 {
            let part = parts[1]
            if part == Self.placeholder {
                instance = .screen
            } else if part.isEmpty {
                throw Invalid(
                    message:
                        "'\(text)' is a bare template: give it an instance, e.g. '\(prefix)@\(Self.placeholder)\(Self.suffix)'"
                )
            } else if part.contains("{") || part.contains("}") {
                throw Invalid(message: "'\(text)': the instance may only be \(Self.placeholder) or a fixed name")
            } else {
                try Self.check(part, in: text, what: "instance")
                instance = .fixed(part)
            }
        } else {
            instance = nil
        }
    }

    /// The unit a launch of `screen` starts: the template's instance filled with the screen,
    /// escaped as `systemd-escape` does (so `%i` in the unit gives the screen back).
    public func name(screen: String) throws(Invalid) -> String {
        let name: String
        switch instance {
        case nil: return configured
        case .fixed: return configured
        case .screen:
            guard !screen.isEmpty else {
                throw Invalid(message: "\(configured): the screen is empty, which is no instance name")
            }
            name = prefix + "@" + Self.escape(screen) + Self.suffix
        }
        guard name.utf8.count <= Self.maximumLength else {
            throw Invalid(
                message: "\(configured) for screen '\(screen.prefix(40))' is longer than \(Self.maximumLength) bytes"
            )
        }
        return name
    }

    /// systemd's unit_name_escape: `/` becomes `-`; `-`, `\`, a leading `.` and every byte
    /// outside letters, digits and `:_.` become `\xNN`.
    public static func escape(_ text: String) -> String {
        var out = ""
        for (index, byte) in text.utf8.enumerated() {
            let scalar = Unicode.Scalar(byte)
            if byte == UInt8(ascii: "/") {
                out.append("-")
            } else if byte < 0x80,
                isAlphanumeric(scalar) || scalar == ":" || scalar == "_" || (scalar == "." && index > 0)
            {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16)
                out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    private static func check(_ part: String, in text: String, what: String) throws(Invalid) {
        if part.isEmpty { throw Invalid(message: "'\(text)' has an empty \(what)") }
        for scalar in part.unicodeScalars where !(isAlphanumeric(scalar) || ":-_.\\".unicodeScalars.contains(scalar)) {
            let shown =
                scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7f
                ? "'\(scalar)'" : "U+\(String(scalar.value, radix: 16, uppercase: true))"
            throw Invalid(
                message: "'\(text)': \(shown) cannot be part of a unit name (letters, digits and :-_.\\ only)"
            )
        }
    }
}
