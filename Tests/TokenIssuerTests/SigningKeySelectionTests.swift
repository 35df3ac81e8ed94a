import Crypto
import Foundation
import Testing
@testable import TokenIssuer

/// Which key signs and which keys are published, across a rotation: the next key is published
/// before it signs, and a retired key stays published until its last token expired.
@Suite("Signing key selection")
struct SigningKeySelectionTests {
    private let ttl: Duration = .seconds(900)
    private let rotatedAt = Date(timeIntervalSince1970: 1_800_000_000)

    /// An old key retired at `rotatedAt`, and the next key that signs from then on.
    private func keys() throws -> (old: SigningKey, next: SigningKey) {
        let old = try SigningKey(pem: try PrivateKey.generateP256().pemRepresentation,
                                      activatesAt: rotatedAt.addingTimeInterval(-86_400), retiredAt: rotatedAt)
        let next = try SigningKey(pem: try PrivateKey.generateP256().pemRepresentation,
                                       activatesAt: rotatedAt, retiredAt: nil)
        return (old, next)
    }

    @Test("before the switch the old key signs and both are published")
    func beforeSwitch() throws {
        let (old, next) = try keys()
        let now = rotatedAt.addingTimeInterval(-1)
        #expect(SigningKeySchedule.active(in: [old, next], at: now)?.kid == old.kid)
        #expect(SigningKeySchedule.published([old, next], at: now, accessTokenTTL: ttl).map(\.kid) == [old.kid, next.kid])
    }

    @Test("after the switch the next key signs; the old one stays published until its tokens expired")
    func afterSwitch() throws {
        let (old, next) = try keys()
        let now = rotatedAt.addingTimeInterval(1)
        #expect(SigningKeySchedule.active(in: [old, next], at: now)?.kid == next.kid)
        #expect(SigningKeySchedule.published([old, next], at: rotatedAt.addingTimeInterval(899), accessTokenTTL: ttl).count == 2)
        #expect(SigningKeySchedule.published([old, next], at: rotatedAt.addingTimeInterval(901), accessTokenTTL: ttl).map(\.kid) == [next.kid])
    }

    @Test("no key signs before the first one activates")
    func none() throws {
        let (_, next) = try keys()
        #expect(SigningKeySchedule.active(in: [next], at: rotatedAt.addingTimeInterval(-1)) == nil)
    }

    /// `key` as a replica sees it that does not hold its private key (its key file has not reached it).
    private func withoutPrivateKey(_ key: SigningKey) -> SigningKey {
        SigningKey(kid: key.kid, publicKey: key.publicKey, publicJWK: key.publicJWK, signer: nil,
                        activatesAt: key.activatesAt, retiredAt: key.retiredAt)
    }

    @Test("a replica that lacks the next key's file signs on with the key it holds, and publishes both")
    func nextKeyFileMissing() throws {
        let (old, next) = try keys()
        let now = rotatedAt.addingTimeInterval(1)
        let seen = [old, withoutPrivateKey(next)]
        #expect(SigningKeySchedule.active(in: seen, at: now)?.kid == next.kid)
        #expect(SigningKeySchedule.signing(in: seen, at: now, accessTokenTTL: ttl)?.kid == old.kid)
        #expect(SigningKeySchedule.published(seen, at: now, accessTokenTTL: ttl).map(\.kid) == [old.kid, next.kid])
    }

    @Test("when the file of the key that signs is gone, the next key signs before its time rather than none")
    func activeKeyFileRemoved() throws {
        let (old, next) = try keys()
        let now = rotatedAt.addingTimeInterval(-1)
        let seen = [withoutPrivateKey(old), next]
        #expect(SigningKeySchedule.active(in: seen, at: now)?.kid == old.kid)
        #expect(SigningKeySchedule.signing(in: seen, at: now, accessTokenTTL: ttl)?.kid == next.kid)
        #expect(SigningKeySchedule.signing(in: [withoutPrivateKey(old)], at: now, accessTokenTTL: ttl) == nil)
    }

    @Test("a retired key no longer published never signs again, even when it is the only one held")
    func unpublishedKeyNeverSigns() throws {
        let (old, next) = try keys()
        let seen = [old, withoutPrivateKey(next)]
        #expect(SigningKeySchedule.signing(in: seen, at: rotatedAt.addingTimeInterval(899), accessTokenTTL: ttl)?.kid == old.kid)
        #expect(SigningKeySchedule.signing(in: seen, at: rotatedAt.addingTimeInterval(901), accessTokenTTL: ttl) == nil)
    }
}
