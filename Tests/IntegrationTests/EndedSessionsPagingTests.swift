import Contracts
import Foundation
import Testing
import TestSupport

/// `auth.issuer.ended-sessions`: what a gateway reads at start and after a gap, page by page.
@Suite("The issuer's ended sessions, page by page")
struct EndedSessionsPagingTests {
    @Test("1,500 sessions ended in the last minute come back once each, in the order they ended, over pages of 1,000 at most")
    func pages() async throws {
        let stack = try await TestStack.shared.running()
        let member = Int64.random(in: 2_000_000_000...3_000_000_000)
        let inserted = try await stack.rows("""
            INSERT INTO issuer.sessions (id, member_id, device_id, provider, expires_at, ended_at, end_reason)
            SELECT gen_random_uuid(), \(member), 'paging-' || n, 'GOOGLE', now() + interval '1 day',
                   now() - n * interval '10 milliseconds', 'logout'
              FROM generate_series(1, 1500) AS n
            RETURNING id::text
            """).compactMap { $0["id"] }
        #expect(inserted.count == 1_500)
        let ours = Set(inserted)

        var seen: [String] = []
        var expiries: [Date] = []
        var after: String?
        var pages = 0
        repeat {
            let page = try await stack.call(Endpoints.endedSessions, EndedSessionsRequest(after: after))
            #expect(page.sessions.count <= 1_000)
            for session in page.sessions where ours.contains(session.sessionId) {
                seen.append(session.sessionId)
                expiries.append(session.tokensExpireAt)
            }
            after = page.next
            pages += 1
        } while after != nil && pages < 100
        #expect(pages >= 2, "1,500 sessions fit one page")
        #expect(seen.count == 1_500 && Set(seen) == ours, "missed or repeated \(1_500 - Set(seen).count) sessions")
        #expect(expiries == expiries.sorted(), "pages are not in the order the sessions ended")
        #expect(expiries.allSatisfy { $0 > Date() }, "a session ended a minute ago has no live tokens left")
    }

    @Test("a cursor that is no page's end, or a limit outside 1 to 1,000, is INVALID_REQUEST", arguments: [
        EndedSessionsRequest(after: "9223372036854775807:0d3c8b8e-5a51-4c3e-9b7a-1f2b3c4d5e6f"),
        EndedSessionsRequest(after: "-1:0d3c8b8e-5a51-4c3e-9b7a-1f2b3c4d5e6f"), EndedSessionsRequest(after: "12:not-a-uuid"),
        EndedSessionsRequest(after: "garbage"), EndedSessionsRequest(limit: 0), EndedSessionsRequest(limit: 1_001),
    ])
    func refused(_ request: EndedSessionsRequest) async throws {
        let stack = try await TestStack.shared.running()
        let result = try await stack.callResult(Endpoints.endedSessions, request)
        guard case .failure(let failure) = result else {
            Issue.record("accepted \(request)")
            return
        }
        #expect(failure.code == .invalidRequest)
    }
}
