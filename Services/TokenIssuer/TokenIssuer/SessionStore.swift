import Contracts
import Crypto
import Foundation
import Postgres

/// Sessions and refresh tokens in the `issuer` schema.
struct SessionStore: Sendable {
    /// What a refresh attempt came to.
    enum Rotation: Sendable {
        case rotated(sessionId: String, memberId: Int64, token: RefreshToken)
        case reused
        case invalid
    }

    let database: PostgresClient
    let refreshTokenTTL: Duration
    let reuseGrace: Duration

    /// Ends the member's session on `deviceId`, if any, and starts a new one; returns its ID and refresh token.
    func startSession(memberId: Int64, deviceId: String, provider: Provider) async throws -> (sessionId: String, token: RefreshToken) {
        let token = RefreshToken.random()
        let rows = try await database.query(
            "SELECT issuer.start_session($1, $2, $3, $4, $5) AS id",
            [.int(memberId), .text(deviceId), .text(provider.rawValue), .bytea(token.hash),
             .int(Int64(refreshTokenTTL.components.seconds))])
        guard let row = rows.first else { throw ServiceFailure.internal }
        return (try row.uuid("id").uuidString.lowercased(), token)
    }

    /// Rotates `token`: the first use yields its successor, a duplicate inside the grace window
    /// the same successor, a use after that ends the session.
    func rotate(_ token: RefreshToken, deviceId: String?, secret: [UInt8]) async throws -> Rotation {
        let successor = token.successor(secret: secret)
        let rows = try await database.query(
            "SELECT status, session_id, member_id FROM issuer.rotate_refresh_token($1, $2, $3, $4, $5)",
            [.bytea(token.hash), .bytea(successor.hash), deviceId.map { .text($0) } ?? .null,
             .int(Int64(reuseGrace.components.seconds)), .int(Int64(refreshTokenTTL.components.seconds))])
        guard let row = rows.first else { throw ServiceFailure.internal }
        switch try row.string("status") {
        case "rotated":
            return .rotated(sessionId: try row.uuid("session_id").uuidString.lowercased(), memberId: try row.int("member_id"), token: successor)
        case "reused":
            return .reused
        case "invalid":
            return .invalid
        case let status:
            throw IssuerError.unexpectedStatus(status)
        }
    }

    /// The secret successors are derived with, created once and shared by every replica.
    func successorSecret() async throws -> [UInt8] {
        _ = try await database.query(
            "INSERT INTO issuer.secrets (name, value) VALUES ('refresh-successor', $1) ON CONFLICT (name) DO NOTHING",
            [.bytea(SecureRandom.bytes(32))])
        let rows = try await database.query("SELECT value FROM issuer.secrets WHERE name = 'refresh-successor'", [])
        guard let row = rows.first else { throw ServiceFailure.internal }
        return try row.bytes("value")
    }
}
