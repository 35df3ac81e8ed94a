import Authentication
import Contracts
import Foundation
import Logging
import Messaging
import NATS
import Synchronization
import Testing
import TestSupport

/// The gateway's seed, stolen and used from elsewhere, may subscribe to the gateway's inbox; every reply
/// there is sealed to the gateway process that asked (`ReplySeal`), so it reads no one's tokens.
@Suite("Replies to the gateway are sealed to the process that asked")
struct SealedReplyTests {
    @Test("an eavesdropper with the gateway's seed sees every reply of a login, refresh and profile read, and none of their tokens or data")
    func eavesdropper() async throws {
        let stack = try await TestStack.shared.running()
        let thief = try await NATSConnection.connect(.init(url: stack.natsURL, name: "thief", access: TestIdentities.access(for: .gateway)),
                                                     logger: Logger(label: "thief", level: .critical))
        try await withResource(thief, close: { await $0.drainAndClose() }) { thief in
            let everything = try thief.subscribe(BusIdentity.gateway.inboxPrefix + ".>")
            try await thief.flush(timeout: .seconds(5))
            let seen = Mutex<[NATSMessage]>([])
            let reader = Task { for await message in everything where !message.payload.isEmpty { seen.withLock { $0.append(message) } } }
            defer { reader.cancel(); everything.unsubscribe() }

            let sub = RunningStack.uniqueSubject("sealed")
            let login = try await stack.googleSession(sub: sub)
            let refreshed = try await stack.refresh(login.refreshToken).data(LoginResponse.self)
            let me = try await stack.get("/api/members/me", bearer: refreshed.accessToken)
            #expect(me.status == 200)
            // The control: the replies of those three requests reached the thief's subscription too.
            #expect(await eventually(timeout: .seconds(10)) { seen.withLock { $0.count } >= 3 }, "the eavesdropper saw no replies")
            #expect(thief.permissionViolations == 0)

            let secrets = [login.accessToken, login.refreshToken, refreshed.accessToken, refreshed.refreshToken, "\(sub)@example.com"]
            // Other suites probe the bus as the gateway with unsealed requests of their own (`…probe…` inboxes).
            for message in seen.withLock({ $0 }) where !message.subject.split(separator: ".").contains("probe") {
                #expect(message.headers[ReplySeal.replyHeader] != nil, "a reply on \(message.subject) is not sealed")
                // The issuer's note to the member-service that handed the login on goes no further.
                #expect(message.headers[IssuedTokenNote.header] == nil, "a reply on \(message.subject) carries the issuer's note")
                let text = String(decoding: message.payload, as: UTF8.self)
                for secret in secrets { #expect(!text.contains(secret), "a reply carried a token or the email in the clear") }
                #expect(!text.contains("accessToken") && !text.contains("\"data\""), "a reply is readable JSON")
            }
        }
    }
}
