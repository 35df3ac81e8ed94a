import Contracts
import JOSE
import Testing
@testable import TokenVerifier

/// The server nonce's format alone: no servers.
@Suite("Server nonce format")
struct ServerNonceRuleTests {
    let nonces = ServerNonce.derived(from: Array(0..<32))
    let now: Int64 = 1_800_000_000

    @Test("a nonce is good for its device until it expires, under any replica's copy of the key; nothing else is")
    func checks() throws {
        let text = nonces.issue(deviceId: "phone", now: now)
        #expect(text.hasPrefix(IssuedNonce.prefix) && IssuedNonce.looksIssued(text))
        guard case .valid(let used) = nonces.check(text, deviceId: "phone", now: now + 599) else {
            Issue.record("a fresh nonce is refused")
            return
        }
        #expect(used.expiresAt == now + ServerNonce.lifetime)
        #expect(used.id.utf8.count == 22)
        // Stateless: another replica with the same key takes it.
        #expect(ServerNonce.derived(from: Array(0..<32)).check(text, deviceId: "phone", now: now) == .valid(used))
        #expect(nonces.check(text, deviceId: "phone", now: now + 600) == .expired)
        #expect(nonces.check(text, deviceId: "tablet", now: now) == .unknown)
        #expect(nonces.check(text, deviceId: "phone\u{0}", now: now) == .unknown)
        #expect(ServerNonce.derived(from: Array(1...32)).check(text, deviceId: "phone", now: now) == .unknown)
        // Every bit of the body and the tag counts.
        let bytes = try #require(Base64URL.decode(text.dropFirst(3)))
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x01
            #expect(nonces.check("n1." + Base64URL.encode(changed), deviceId: "phone", now: now) == .unknown, "byte \(index)")
        }
        #expect(nonces.check("n2." + text.dropFirst(3), deviceId: "phone", now: now) == .unknown)
        #expect(nonces.check(String(text.dropLast()), deviceId: "phone", now: now) == .unknown)
        #expect(nonces.check(text + "A", deviceId: "phone", now: now) == .unknown)
        #expect(nonces.check("", deviceId: "phone", now: now) == .unknown)
        #expect(nonces.issue(deviceId: "phone", now: now) != text, "16 random bytes each")
    }

    @Test("a nonce whose expiry is further off than a sane clock allows is refused")
    func farExpiry() {
        // Issued by a replica whose clock ran a day ahead.
        let ahead = nonces.issue(deviceId: "phone", now: now + 86_400)
        #expect(nonces.check(ahead, deviceId: "phone", now: now) == .unknown)
        // Ten minutes ahead is still a clock this side of the allowance.
        let close = nonces.issue(deviceId: "phone", now: now + ServerNonce.clockAllowance)
        if case .valid = nonces.check(close, deviceId: "phone", now: now) {} else { Issue.record("a nonce from a clock 10 min ahead is refused") }
    }
}
