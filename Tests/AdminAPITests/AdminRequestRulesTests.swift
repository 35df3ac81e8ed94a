import Contracts
import Testing
@testable import AdminAPI

@Suite("Admin request validation")
struct AdminRequestRulesTests {
    @Test("limit: 1 to 500, 50 by default")
    func limit() throws {
        #expect(try AdminRequestRules.limit(nil) == 50)
        #expect(try AdminRequestRules.limit("1") == 1)
        #expect(try AdminRequestRules.limit("500") == 500)
        for bad in ["0", "501", "-1", "ten", "", "99999999999999999999"] {
            #expect(throws: ServiceFailure.self) { try AdminRequestRules.limit(bad) }
        }
    }

    @Test("before: a record ID from 1")
    func before() throws {
        #expect(try AdminRequestRules.before(nil) == nil)
        #expect(try AdminRequestRules.before("42") == 42)
        for bad in ["0", "-3", "+3", "x", "", "99999999999999999999"] {
            #expect(throws: ServiceFailure.self) { try AdminRequestRules.before(bad) }
        }
    }

    @Test("reason: required, not blank, bounded, no control characters")
    func reason() throws {
        #expect(try AdminRequestRules.reason("fraud ring, ticket 4711") == "fraud ring, ticket 4711")
        for bad: String? in [nil, "", "   ", "a\u{0}b", "line\nbreak", String(repeating: "x", count: FieldLimits.adminReason + 1)] {
            #expect(throws: ServiceFailure.self) { try AdminRequestRules.reason(bad) }
        }
    }

    @Test("member IDs: digits from 1, else 404")
    func memberId() throws {
        #expect(try AdminRequestRules.memberId("7") == 7)
        for bad in ["0", "-1", "1e3", "abc", "99999999999999999999"] {
            #expect { try AdminRequestRules.memberId(bad) } throws: { ($0 as? ServiceFailure)?.code == .notFound }
        }
    }

    @Test("a search is by identity or by email, one of the two")
    func search() throws {
        #expect(try AdminRequestRules.search(provider: "google", subject: "123", email: nil) == .identity(.google, subject: "123"))
        #expect(try AdminRequestRules.search(provider: nil, subject: nil, email: "a@example.com") == .email("a@example.com"))
        let bad: [(String?, String?, String?)] = [(nil, nil, nil), ("google", "1", "a@example.com"), ("myspace", "1", nil), ("google", nil, nil),
                                                   (nil, "1", nil), (nil, nil, String(repeating: "a", count: 400)), (nil, nil, "a\u{1}b")]
        for (provider, subject, email) in bad {
            #expect { try AdminRequestRules.search(provider: provider, subject: subject, email: email) } throws: {
                ($0 as? ServiceFailure)?.code == .invalidRequest
            }
        }
    }
}
