import Contracts
import Foundation
import JOSE

/// The issuer's signing keys as its use cases need them: the database's or the key files' (`SigningKeys`)
/// in the service, one key in memory in unit tests. Which key signs and which are published is
/// ``SigningKeySchedule``'s rule.
protocol SigningKeyProvider: Sendable {
    /// The signer of the key that signs now, and when its tokens must have expired by (a retired key's
    /// fallback), or nil.
    func signer() async throws -> (signer: JWTSigner, expiresBy: Date?)
    /// The key set the issuer publishes.
    func published() async -> JWKSet
    /// Whether the keys come from key files (then they are rotated by adding a file, not by a request).
    var fromFile: Bool { get async }
    /// Starts a rotation now (``SigningKeyRotation``), or nil when none was made.
    func rotate() async throws -> SigningKeyRotation?
}
