import Runtime
import Testing

@Suite("Reading configuration from the environment")
struct EnvironmentReaderTests {
    @Test("unset and blank variables fall back to the default")
    func defaults() throws {
        let environment = EnvironmentReader(["BLANK": "   "])
        #expect(environment.string("UNSET", default: "x") == "x")
        #expect(environment.string("BLANK", default: "y") == "y")
        #expect(try environment.int("UNSET", default: 7, in: 0...10) == 7)
        #expect(environment.list("UNSET") == nil)
    }

    @Test("lists are trimmed and drop empty entries")
    func lists() {
        let environment = EnvironmentReader(["IDS": " a, b ,,c "])
        #expect(environment.list("IDS") == ["a", "b", "c"])
    }

    @Test("a bad number names the variable and what is wrong", arguments: [("abc", "not a whole number"), ("99999", "outside")])
    func badNumber(_ value: String, _ problem: String) {
        let environment = EnvironmentReader(["GATEWAY_PORT": value])
        #expect {
            try environment.int("GATEWAY_PORT", default: 8080, in: 0...65_535)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.variable == "GATEWAY_PORT" && error.problem.contains(problem) && error.description.hasPrefix("GATEWAY_PORT:")
        }
    }

    @Test("URLs must be absolute with an allowed scheme")
    func urls() throws {
        let environment = EnvironmentReader(["GOOD": "nats://127.0.0.1:4222", "BAD": "127.0.0.1:4222", "WRONG": "http://x"])
        #expect(try environment.url("GOOD", default: "", schemes: ["nats"]) == "nats://127.0.0.1:4222")
        #expect(throws: ConfigurationError.self) { try environment.url("BAD", default: "", schemes: ["nats"]) }
        #expect(throws: ConfigurationError.self) { try environment.url("WRONG", default: "", schemes: ["nats"]) }
    }

    @Test("a list of URLs (NATS_URL of a cluster): each checked, trimmed, none empty or twice, none with a user or password, which no message shows")
    func urlLists() throws {
        let environment = EnvironmentReader([
            "ONE": "nats://a:4222", "THREE": "nats://a:4222, tls://b:4222 ,nats://c:4222",
            "EMPTY": "nats://a:4222,,nats://b:4222", "TRAILING": "nats://a:4222,", "TWICE": "nats://a:4222,NATS://A:4222",
            "WRONG": "nats://a:4222,http://b", "SECRET": "nats://a:4222,nats//user:hunter2@b:4222",
            "USER": "nats://a:4222,nats://user:hunter2@b:4222", "COMMA": "nats://user:hun,ter2@a:4222",
        ])
        #expect(try environment.urlList("ONE", default: "", schemes: ["nats", "tls"]) == "nats://a:4222")
        #expect(try environment.urlList("THREE", default: "", schemes: ["nats", "tls"]) == "nats://a:4222,tls://b:4222,nats://c:4222")
        #expect(try environment.urlList("UNSET", default: "nats://127.0.0.1:4222", schemes: ["nats"]) == "nats://127.0.0.1:4222")
        for name in ["EMPTY", "TRAILING", "TWICE", "WRONG", "SECRET", "USER", "COMMA"] {
            #expect {
                try environment.urlList(name, default: "", schemes: ["nats", "tls"])
            } throws: { error in
                guard let error = error as? ConfigurationError else { return false }
                let text = error.description
                return error.variable == name && !text.contains("hun") && !text.contains("ter2") && !text.contains("user:")
            }
        }
    }

    @Test("booleans and choices accept only their words")
    func booleansAndChoices() throws {
        let environment = EnvironmentReader(["ON": "yes", "ODD": "maybe", "MODE": "text"])
        #expect(try environment.bool("ON", default: false) == true)
        #expect(throws: ConfigurationError.self) { try environment.bool("ODD", default: false) }
        #expect(try environment.choice("MODE", default: "json", from: ["json", "text"]) == "text")
        #expect(throws: ConfigurationError.self) { try environment.choice("ODD", default: "json", from: ["json", "text"]) }
    }
}
