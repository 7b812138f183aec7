/// Finds where a key path was written in TOML text, for error locations.
///
/// TOML libraries report positions for syntax errors only, so this reads the text line by
/// line: `[table]` and `[[array]]` headers (counting array elements), `key = value` lines
/// (dotted and quoted keys too), and the keys of one-line inline tables. A path that was not
/// written literally (a default) is located at its nearest written ancestor.
struct KeyLocator {
    private var positions: [String: (line: Int, column: Int)] = [:]

    init(_ text: String) {
        var header: [String] = []
        var arrayCounts: [String: Int] = [:]
        for (lineIndex, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = lineIndex + 1
            let indent = rawLine.prefix { $0 == " " || $0 == "\t" }.count
            let content = rawLine.dropFirst(indent)
            if content.hasPrefix("[[") {
                let keys = Self.keys(content.dropFirst(2).prefix { $0 != "]" })
                let name = keys.joined(separator: ".")
                let index = arrayCounts[name, default: 0]
                arrayCounts[name] = index + 1
                header = Self.arrayPath(keys, index)
                record(header.joined(separator: "."), line, indent + 1)
            } else if content.hasPrefix("[") {
                header = Self.keys(content.dropFirst().prefix { $0 != "]" })
                record(header.joined(separator: "."), line, indent + 1)
            } else if let equals = Self.assignment(content) {
                let keyText = content[..<equals]
                let path = header + Self.keys(keyText)
                record(path.joined(separator: "."), line, indent + 1)
                // One-line inline table: locate its keys too.
                let value = content[content.index(after: equals)...]
                if let open = value.firstIndex(of: "{") {
                    var offset = indent + content.distance(from: content.startIndex, to: open) + 1
                    for item in value[value.index(after: open)...].split(
                        separator: ",",
                        omittingEmptySubsequences: false
                    ) {
                        if let itemEquals = Self.assignment(item) {
                            let leading = item.prefix { $0 == " " }.count
                            record(
                                (path + Self.keys(item[..<itemEquals])).joined(separator: "."),
                                line,
                                offset + leading + 1
                            )
                        }
                        offset += item.count + 1
                    }
                }
            }
        }
    }

    private mutating func record(_ path: String, _ line: Int, _ column: Int) {
        if positions[path] == nil { positions[path] = (line, column) }
    }

    /// The position of `path` (e.g. `apps[1].screens`), or of its nearest written ancestor.
    func locate(_ path: String) -> (line: Int, column: Int) {
        var candidate = path
        while true {
            if let position = positions[candidate] { return position }
            guard let cut = candidate.lastIndex(where: { $0 == "." || $0 == "[" }) else { return (1, 1) }
            candidate = String(candidate[..<cut])
        }
    }

    /// `a.b[2]` style path for an array-of-tables header.
    private static func arrayPath(_ keys: [String], _ index: Int) -> [String] {
        guard let last = keys.last else { return [] }
        return keys.dropLast() + ["\(last)[\(index)]"]
    }

    /// The index of the `=` of a `key = value` line, if it is one (not inside quotes).
    private static func assignment(_ text: Substring) -> Substring.Index? {
        var inQuotes = false
        for index in text.indices {
            switch text[index] {
            case "\"": inQuotes.toggle()
            case "=" where !inQuotes: return index
            case "#" where !inQuotes, "{" where !inQuotes, "[" where !inQuotes: return nil
            default: continue
            }
        }
        return nil
    }

    /// `a.b`, `"a.b".c` → keys, quotes removed.
    private static func keys(_ text: Substring) -> [String] {
        var keys: [String] = []
        var current = ""
        var inQuotes = false
        for character in text {
            switch character {
            case "\"": inQuotes.toggle()
            case "." where !inQuotes:
                keys.append(current.trimmingSpaces())
                current = ""
            default: current.append(character)
            }
        }
        keys.append(current.trimmingSpaces())
        return keys.filter { !$0.isEmpty }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
