import Contracts
import Rules
import Testing

@Suite("Profile rules: time zones, language tags, pictures")
struct ProfileRulesTests {
    @Test("IANA names are time zones; offsets, abbreviations Foundation renames and junk are not")
    func timeZones() {
        for name in ["Asia/Seoul", "America/New_York", "UTC", "Etc/UTC", "Etc/GMT-9", "Europe/Kyiv", "Asia/Kolkata", "GMT", "GMT+0", "GMT-0",
                     "EST", "CET", "Japan", "US/Pacific"] {
            #expect(ProfileRules.isKnownTimeZone(name), "\(name)")
        }
        for name in ["", "GMT+9", "GMT+0900", "UTC+9", "+0900", "Z", "asia/seoul", "Asia/Seoul ", "Mars/Olympus", "../etc/passwd",
                     "PST", "IST", "JST", "CTT", "Factory", "SystemV/AST4", "US/Pacific-New", "posixrules", "localtime",
                     String(repeating: "A", count: 65)] {
            #expect(!ProfileRules.isKnownTimeZone(name), "\(name)")
        }
    }

    @Test("RFC 5646's examples (appendix A) are well-formed, in any case")
    func wellFormedTags() {
        for tag in ["de", "fr", "ja", "i-enochian", "zh-Hant", "zh-Hans", "sr-Cyrl", "sr-Latn", "zh-cmn-Hans-CN", "cmn-Hans-CN",
                    "zh-yue-HK", "yue-HK", "zh-Hans-CN", "sr-Latn-RS", "sl-rozaj", "sl-rozaj-biske", "sl-nedis", "de-CH-1901",
                    "sl-IT-nedis", "hy-Latn-IT-arevela", "de-DE", "en-US", "es-419", "de-CH-x-phonebk", "az-Arab-x-AZE-derbend",
                    "x-whatever", "qaa-Qaaa-QM-x-southern", "de-Qaaa", "sr-Latn-QM", "sr-Qaaa-RS", "en-US-u-islamcal",
                    "zh-CN-a-myext-x-private", "en-a-myext-b-another", "KO-kr", "en-GB-oed"] {
            #expect(ProfileRules.isWellFormedLanguageTag(tag), "\(tag)")
        }
    }

    @Test("tags outside the grammar are refused (RFC 5646's own counter-examples among them)")
    func malformedTags() {
        for tag in ["", "e", "en_US", "en--US", "-en", "en-", "a-DE", "ar-a-aaa-b-bbb-a", "de-419-DE", "en-US-x", "en-a", "toolongtag",
                    "en US", "ko-KR\n", "한국어", "en-Latn-Latn", "en-x-abcdefghi", String(repeating: "a", count: 3) + "-" + String(repeating: "b", count: 32)] {
            #expect(!ProfileRules.isWellFormedLanguageTag(tag), "\(tag)")
        }
    }

    @Test("a login's locale is stored as a tag in its usual case, from Apple's identifier forms too; junk is dropped")
    func loginLocales() {
        #expect(ProfileRules.loginLocale("ko_KR") == "ko-KR")
        #expect(ProfileRules.loginLocale("en_US@calendar=japanese") == "en-US")
        #expect(ProfileRules.loginLocale("zh-hant_tw") == "zh-Hant-TW")
        #expect(ProfileRules.loginLocale("en_US_POSIX") == "en-US-posix")
        #expect(ProfileRules.loginLocale("sr-latn-rs-u-NU-ARAB") == "sr-Latn-RS-u-nu-arab")
        #expect(ProfileRules.loginLocale("X-AB-Cdef") == "x-ab-cdef", "private use is lower case throughout")
        #expect(ProfileRules.loginLocale("en_US@calendar=japanese;numbers=arab") == "en-US")
        #expect(ProfileRules.loginLocale("not a locale") == nil)
        #expect(ProfileRules.loginLocale("") == nil)
    }

    @Test("a provider's picture is kept only as an https URL with a host, no credentials, spaces or controls")
    func pictures() {
        let kept = "https://lh3.googleusercontent.com/a/photo=s96-c"
        #expect(ProfileRules.pictureURL(kept) == kept)
        #expect(ProfileRules.pictureURL("HTTPS://phinf.pstatic.net/x.jpg") == "HTTPS://phinf.pstatic.net/x.jpg")
        #expect(ProfileRules.pictureURL("https://xn--r8jz45g.jp/a%20b.jpg?s=96&x=(1)") != nil, "punycode host, escapes")
        for bad in ["http://example.com/a.png", "javascript:alert(1)", "https://", "https:///a", "https://user:pw@example.com/a",
                    "https://evil.com/\"onerror=\"alert(1)", "https://evil.com/<script>", "https://evil.com/a.jpg#\"><svg>",
                    "https://example.com/a|b", "https://example.com/{x}", "https://example.com/%zz", "https://例え.jp/a",
                    "https://gооgle.com/a", "https://%65vil.com/a", "https://example.com:99999/a", "https://169.254.169.254/x",
                    "https://127.0.0.1/x", "https://[::1]/x", "https://localhost/x", "https://example.com/\u{202E}x",
                    "https://-bad-.example.com/x", "https://example.com\\@evil.com/", "https://example.com/'x'",
                    "https://example.com/a b", "https://example.com/\u{0}", "data:image/png;base64,AAAA", "https://example.com/"
                    + String(repeating: "a", count: ProfileRules.pictureMaxBytes)] {
            #expect(ProfileRules.pictureURL(bad) == nil, "\(bad)")
        }
        #expect(ProfileRules.pictureURL(nil) == nil)
    }

    @Test("an update's fields are checked, each failure naming its field")
    func updateChecks() throws {
        try ProfileRules.check(name: "Kim Minji", timezone: "Asia/Seoul", locale: "ko-KR")
        try ProfileRules.check(name: nil, timezone: nil, locale: nil)
        try ProfileRules.check(name: "👨‍👩‍👧 Family", timezone: nil, locale: nil)  // emoji joined by U+200D
        try ProfileRules.check(name: "می‌خواهم", timezone: nil, locale: nil)      // Persian with U+200C
        let cases: [(String?, String?, String?, String)] = [
            ("", nil, nil, "name"), ("  ", nil, nil, "name"), ("a\u{7}b", nil, nil, "name"),
            ("a\u{202E}evil", nil, nil, "name"), ("x\u{2066}y\u{2069}", nil, nil, "name"), ("a\u{2028}b", nil, nil, "name"),
            ("\u{E000}", nil, nil, "name"), ("a\u{FFFF}", nil, nil, "name"), ("\u{200B}", nil, nil, "name"), ("\u{3164}", nil, nil, "name"),
            ("\u{2800}", nil, nil, "name"), ("\u{FEFF}a", nil, nil, "name"),
            (String(repeating: "가", count: 67), nil, nil, "name"),
            (nil, "GMT+9", nil, "timezone"), (nil, "Mars/Olympus", nil, "timezone"), (nil, "", nil, "timezone"),
            (nil, nil, "ko_KR", "locale"), (nil, nil, "", "locale"), (nil, nil, "en--US", "locale"),
        ]
        for (name, timezone, locale, field) in cases {
            do {
                try ProfileRules.check(name: name, timezone: timezone, locale: locale)
                Issue.record("accepted \(field): \(String(describing: name ?? timezone ?? locale))")
            } catch {
                #expect(error.code == .invalidRequest)
                #expect(error.message.hasPrefix(field), "\(error.message)")
            }
        }
    }

    @Test("a provider's name is cleaned, not refused; an email that is none is dropped")
    func providerFields() {
        #expect(ProfileRules.providerName("line1\nline2\r\nX-Injected: 1") == "line1 line2  X-Injected: 1")
        #expect(ProfileRules.providerName("\u{1B}[31mred") == "[31mred")
        #expect(ProfileRules.providerName("a\u{0}b") == "a b")
        #expect(ProfileRules.providerName("\u{202E}evil\u{200B}") == "evil")
        #expect(ProfileRules.providerName("  Kim  ") == "Kim")
        #expect(ProfileRules.providerName("   ") == nil)
        #expect(ProfileRules.providerName("\u{3164}") == nil)
        let long = ProfileRules.providerName(String(repeating: "가", count: 400))
        #expect(long?.utf8.count == 198 && long?.count == 66, "cut at a character's end within 200 bytes")
        #expect(ProfileRules.providerEmail("a@example.com") == "a@example.com")
        for bad in ["x\u{0}@y.com", "a b@example.com", "a@example.com\n", "a\u{202E}@example.com", "", String(repeating: "a", count: 321)] {
            #expect(ProfileRules.providerEmail(bad) == nil, "\(bad)")
        }
    }
}
