import Contracts
import Logging

/// What member-service's endpoints do, one method per endpoint: check what the store cannot, call
/// the store, log the change. `MemberServer` wires them to NATS.
struct MemberHandlers: Sendable {
    let store: MemberStore
    let logger: Logger

    func login(_ request: MemberLoginRequest) async throws -> MemberLoginReply {
        try Self.validate(request.identity)
        var request = request
        request.identity = Self.cleaned(request.identity)
        request.name = ProfileRules.providerName(request.name)
        request.email = ProfileRules.providerEmail(request.email)
        return try await store.login(request)
    }

    func profile(_ request: MemberGetRequest) async throws -> MemberProfile {
        guard let profile = try await store.profile(memberId: request.memberId) else {
            throw ServiceFailure(.notFound, "No such member.")
        }
        return profile
    }

    /// Checks the fields again (nothing on the bus is trusted), then changes them.
    func update(_ request: MemberUpdateRequest) async throws -> MemberProfile {
        try ProfileRules.check(name: request.name, timezone: request.timezone, locale: request.locale)
        let profile = try await store.update(request)
        logger.info("member updated", ["member.id": String(request.memberId)])
        return profile
    }

    func link(_ request: LinkIdentityRequest) async throws -> MemberProfile {
        try Self.validate(request.identity)
        var request = request
        request.identity = Self.cleaned(request.identity)
        request.name = ProfileRules.providerName(request.name)
        request.email = ProfileRules.providerEmail(request.email)
        let profile = try await store.link(request)
        logger.info("identity linked", ["member.id": String(request.memberId), "identity.provider": request.identity.provider.rawValue])
        return profile
    }

    func unlink(_ request: UnlinkIdentityRequest) async throws -> MemberProfile {
        let profile = try await store.unlink(request)
        logger.info("identity unlinked", ["member.id": String(request.memberId), "identity.provider": request.provider.rawValue])
        return profile
    }

    func delete(_ request: MemberDeleteRequest) async throws -> MemberDeleteReply {
        let deleted = try await store.delete(memberId: request.memberId, reason: "requested")
        if deleted { logger.info("member deleted", ["member.id": String(request.memberId)]) }
        return MemberDeleteReply(memberId: request.memberId, deleted: deleted)
    }

    func appleNotification(_ notification: AppleNotification) async throws -> AppleNotificationOutcome {
        try Self.validate(notification)
        let outcome = try await store.handle(notification)
        logger.info("apple notification handled",
                    ["apple.event": notification.type, "member.id": outcome.memberId.map(String.init) ?? "none",
                     "identity.ended": String(outcome.identityEnded), "member.deleted": String(outcome.memberDeleted)])
        return outcome
    }

    static func validate(_ identity: VerifiedIdentity) throws(ServiceFailure) {
        guard !identity.subject.isEmpty, identity.subject.utf8.count <= 255 else {
            throw .invalidRequest("The identity's subject must be 1 to 255 bytes.")
        }
        guard !identity.subject.unicodeScalars.contains(where: \.isControlCharacter) else {
            throw .invalidRequest("The identity's subject must not contain control characters.")
        }
    }

    /// What a provider says of the user, as the member-service keeps it (``ProfileRules``): a name with
    /// control or invisible characters cleaned, an email that is none dropped, a picture that is not a
    /// plain https URL dropped. Nothing on the bus is trusted, the verifier's answer neither.
    static func cleaned(_ identity: VerifiedIdentity) -> VerifiedIdentity {
        var identity = identity
        identity.name = ProfileRules.providerName(identity.name)
        identity.email = ProfileRules.providerEmail(identity.email)
        identity.pictureUrl = ProfileRules.pictureURL(identity.pictureUrl)
        return identity
    }

    static func validate(_ notification: AppleNotification) throws(ServiceFailure) {
        guard !notification.subject.isEmpty, notification.subject.utf8.count <= 255 else {
            throw .invalidRequest("The notification's subject must be 1 to 255 bytes.")
        }
        guard !notification.type.isEmpty, notification.type.utf8.count <= 64 else {
            throw .invalidRequest("The notification's type must be 1 to 64 bytes.")
        }
        guard (1...255).contains(notification.jti.utf8.count) else {
            throw .invalidRequest("The notification's jti must be 1 to 255 bytes.")
        }
    }
}
