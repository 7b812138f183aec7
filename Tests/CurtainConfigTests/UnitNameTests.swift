import CurtainCore
import Testing

@testable import CurtainConfig

/// `[[apps]] unit`: which names are accepted (only what systemd accepts, never a path or
/// anything a shell would read), how a template's instance is filled, where errors point,
/// and the polkit rule made from the configured units.
@Suite struct UnitNameTests {
    func errors(_ text: String) -> [String] {
        do {
            _ = try Configuration(toml: text, file: "c.toml")
            return []
        } catch { return error.errors.map(\.description) }
    }

    func message(_ text: String) -> String? {
        do {
            _ = try UnitName(text)
            return nil
        } catch { return error.message }
    }

    @Test func plainTemplateAndFixedInstances() throws {
        let plain = try UnitName("shop.service")
        #expect(plain.instance == nil && plain.prefix == "shop")
        #expect(try plain.name(screen: "home") == "shop.service")
        let template = try UnitName("shop@{screen}.service")
        #expect(template.instance == .screen && template.prefix == "shop")
        #expect(try template.name(screen: "home") == "shop@home.service")
        let fixed = try UnitName("kiosk-ui@tv1.service")
        #expect(fixed.instance == .fixed("tv1"))
        #expect(try fixed.name(screen: "home") == "kiosk-ui@tv1.service")
        #expect(try UnitName("org.example:shop_2-x.service").prefix == "org.example:shop_2-x")
    }

    @Test(arguments: [
        ("/etc/systemd/system/shop.service", "'/' cannot be part of a unit name"),
        ("../shop.service", "'/' cannot be part of a unit name"),
        ("shop", "is not a service"),
        ("shop.socket", "is not a service"),
        ("shop@.service", "is a bare template"),
        ("shop@{screen}x.service", "the instance may only be {screen} or a fixed name"),
        ("{screen}.service", "'{' cannot be part of a unit name"),
        ("a@b@c.service", "more than one '@'"),
        ("shop;reboot.service", "';' cannot be part of a unit name"),
        ("$(reboot).service", "'$' cannot be part of a unit name"),
        ("shop app.service", "' ' cannot be part of a unit name"),
        ("shop\n.service", "U+A cannot be part of a unit name"),
        (".service", "has an empty name"),
        ("-shop.service", "must begin with a letter or a digit"),
        (".hidden.service", "must begin with a letter or a digit"),
    ])
    func refusedNames(_ text: String, _ expected: String) {
        let message = message(text)
        #expect(message?.contains(expected) == true, "\(text): \(message ?? "accepted")")
    }

    @Test func lengthLimitAtTheBoundary() throws {
        let atLimit = String(repeating: "a", count: UnitName.maximumLength - UnitName.suffix.count) + UnitName.suffix
        #expect(atLimit.utf8.count == UnitName.maximumLength)
        #expect(message(atLimit) == nil)
        #expect(message("a" + atLimit)?.contains("longer than 255 bytes") == true)
        // Expanded: the template's name with the screen, at the limit and one past.
        let template = try UnitName("s@{screen}.service")
        let room = UnitName.maximumLength - "s@.service".utf8.count
        #expect(try template.name(screen: String(repeating: "x", count: room)).utf8.count == UnitName.maximumLength)
        #expect(throws: UnitName.Invalid.self) { try template.name(screen: String(repeating: "x", count: room + 1)) }
        #expect(throws: UnitName.Invalid.self) { try template.name(screen: "") }
    }

    @Test func instancesAreEscapedAsSystemdEscapeDoes() throws {
        // systemd-escape: '/' → '-', '-' and '\' and a leading '.' and non-ASCII → \xNN.
        #expect(UnitName.escape("home") == "home")
        #expect(UnitName.escape("a/b") == "a-b")
        #expect(UnitName.escape("new-arrivals") == "new\\x2darrivals")
        #expect(UnitName.escape(".x.y") == "\\x2ex.y")
        #expect(UnitName.escape("ü") == "\\xc3\\xbc")
        #expect(UnitName.escape("a b;c$") == "a\\x20b\\x3bc\\x24")
        let template = try UnitName("shop@{screen}.service")
        let name = try template.name(screen: "../../etc/passwd")
        #expect(name == "shop@\\x2e.-..-etc-passwd.service" && !name.contains("/"))
        #expect(message(name) == nil, "an expanded name is itself a valid unit name")
    }

    @Test func configurationErrorsHaveTheirLine() {
        #expect(errors("[[apps]]\nname = \"shop\"\nunit = \"shop.service\"\n").isEmpty)
        #expect(
            errors("[[apps]]\nname = \"shop\"\nunit = \"shop/x.service\"\n")
                == [
                    "c.toml:3:1: apps[0].unit: 'shop/x.service': '/' cannot be part of a unit name (letters, digits and :-_.\\ only)"
                ]
        )
        #expect(
            errors("[[apps]]\nname = \"shop\"\nexec = [\"/bin/shop\"]\nunit = \"shop.service\"\n")
                == [
                    "c.toml:4:1: apps[0].unit: exec and unit exclude each other: curtaind either runs exec itself or starts the unit"
                ]
        )
        #expect(
            errors("[[apps]]\nname = \"shop\"\nunit = \"shop.service\"\nworking_directory = \"/srv\"\n")
                == [
                    "c.toml:4:1: apps[0].working_directory: has no effect on a unit: set it in the unit (Environment=, WorkingDirectory=)"
                ]
        )
        #expect(errors("[[apps]]\nname = \"shop\"\nunit = 3\n").count == 1)
    }

    @Test func polkitRuleListsExactlyTheConfiguredUnits() throws {
        let configuration = try Configuration(
            toml: """
                [[apps]]
                name = "shop"
                unit = "shop@{screen}.service"
                screens = ["home", "new-in"]
                [[apps]]
                name = "chat"
                unit = "chat.service"
                [[apps]]
                name = "demo"
                exec = ["/bin/true"]

                """,
            file: "c.toml"
        )
        #expect(
            PolkitRule.units(of: configuration) == ["shop@home.service", "shop@new\\x2din.service", "chat.service"]
        )
        let rule = PolkitRule.text(for: configuration, source: "c.toml")
        #expect(rule.contains(#""shop@new\\x2din.service""#), "a JavaScript string: the backslash escaped")
        #expect(rule.contains(#"subject.user != "curtain""#))
        #expect(rule.contains(#"["start","stop","restart"]"#))
        #expect(rule.contains("return polkit.Result.NO;"))
        #expect(PolkitRule.text(for: Configuration(), source: "none").contains("var units = [];"))
    }
}
