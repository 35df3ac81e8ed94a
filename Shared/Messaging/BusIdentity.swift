import Contracts

/// Who may do what on NATS (SPEC section 9). This is the one table: nats-server's authorization
/// (`BusAuthorization`, the `nats-auth` tool) is made from it, the README's table is printed from
/// it, and every service connects with its identity's inbox prefix from it. Everything not listed
/// is denied.
public enum BusIdentity: String, CaseIterable, Sendable {
    /// The HTTP API: hands the internet's requests on, each with the proof it carries; it may create no
    /// JetStream consumer and name no member on its own.
    case gateway
    /// Proves provider tokens; revokes provider grants of deleted members.
    case tokenVerifier = "token-verifier"
    /// Members and identities; publishes their events.
    case memberService = "member-service"
    /// Tokens and sessions; publishes session events.
    case tokenIssuer = "token-issuer"
    /// The operators' API: the only identity that acts on a member without that member's proof, each call
    /// for a named admin with a reason; reads every event into the audit trail through its own durable.
    case adminAPI = "admin-api"
    /// Delivers events to the app backends' webhooks: reads every event through the consumers `webhook-01` to
    /// `webhook-32` (one per endpoint, claimed in the relay's key-value bucket, whose claim and lease keys are the
    /// only ones it writes), which the member-service makes; it calls no service, publishes no event, and may create
    /// no consumer.
    case webhookRelay = "webhook-relay"
    /// A person or script running the system: asks for a signing-key rotation and service discovery,
    /// proves a provider token (a diagnostic), reads stored events one by one and follows them live; it
    /// cannot call the services that act on members, answer them, publish events, edit the stream, create
    /// a consumer or touch the services' durable consumers.
    case `operator`
    /// Edits the event stream's settings (`nats stream edit`: limits, replicas, subjects), which can
    /// point the stream at anyone's subjects: a credential kept offline, used by a person, never by a
    /// service.
    case streamAdmin = "stream-admin"

    /// The prefix of this identity's reply subjects: only it may subscribe under it, so no other
    /// identity reads its replies (refresh tokens travel in them).
    public var inboxPrefix: String { "_INBOX_\(rawValue)" }

    /// What the server lets this identity do.
    public var grant: BusGrant {
        switch self {
        case .gateway:
            BusGrant(
                publish: BusSubjects.requests(sentBy: self) + BusSubjects.pings,
                subscribe: [SigningKeyNotices.changed, Events.sessionEnded.subject],
                allowResponses: false)
        case .tokenVerifier:
            BusGrant(
                publish: BusSubjects.requests(sentBy: self) + JetStreamSubjects.streamSetUp + JetStreamSubjects.durable(Events.Durables.revocations),
                subscribe: BusSubjects.requests(answeredBy: self) + BusSubjects.answering(QueueGroups.tokenVerifier),
                allowResponses: true)
        case .memberService:
            // It makes the webhook-relay's bucket and consumers when it starts, which the relay may not.
            BusGrant(
                publish: BusSubjects.requests(sentBy: self) + BusSubjects.events(publishedBy: .memberService) + JetStreamSubjects.streamSetUp
                    + Events.Durables.webhookSlots.flatMap(JetStreamSubjects.making) + JetStreamSubjects.keyValueSetUp(Events.webhookBucket),
                subscribe: BusSubjects.requests(answeredBy: self) + BusSubjects.answering(QueueGroups.memberService)
                    + [SigningKeyNotices.changed],
                allowResponses: true)
        case .tokenIssuer:
            BusGrant(
                publish: BusSubjects.events(publishedBy: .tokenIssuer) + JetStreamSubjects.streamSetUp
                    + JetStreamSubjects.durable(Events.Durables.sessionsOfDeletedMembers)
                    + JetStreamSubjects.durable(Events.Durables.sessionsOfUnlinkedIdentities)
                    + JetStreamSubjects.durable(Events.Durables.sessionsOfSuspendedMembers)
                    + JetStreamSubjects.durable(Events.Durables.sessionsOfUnsuspendedMembers)
                    + [SigningKeyNotices.changed],
                subscribe: BusSubjects.requests(answeredBy: self) + BusSubjects.answering(QueueGroups.tokenIssuer)
                    + [SigningKeyNotices.changed],
                allowResponses: true)
        case .adminAPI:
            BusGrant(
                publish: BusSubjects.requests(sentBy: self) + JetStreamSubjects.streamSetUp + JetStreamSubjects.durable(Events.Durables.audit),
                subscribe: [],
                allowResponses: false)
        case .webhookRelay:
            BusGrant(
                publish: [JetStreamSubjects.streamInfo] + Events.Durables.webhookSlots.flatMap(JetStreamSubjects.reading)
                    + JetStreamSubjects.keyValue(Events.webhookBucket, keys: WebhookSlot.keys),
                subscribe: [],
                allowResponses: false)
        case .operator:
            BusGrant(
                publish: BusSubjects.requests(sentBy: self) + ["$SRV.>"] + BusSubjects.pings + JetStreamSubjects.inspection,
                denyPublish: JetStreamSubjects.everyDurable,
                subscribe: ["events.>"],
                allowResponses: false)
        case .streamAdmin:
            BusGrant(publish: JetStreamSubjects.streamAdministration + JetStreamSubjects.bucketAdministration(Events.webhookBucket),
                     subscribe: [], allowResponses: false)
        }
    }
}

/// One identity's permissions: subjects (NATS wildcards allowed) it may publish to and subscribe
/// to. Its own inbox (`<prefix>.>`) is always added to `subscribe`; `allowResponses` lets it answer
/// a request it received, once, on that request's reply subject.
public struct BusGrant: Sendable, Equatable {
    /// Subjects it may publish to.
    public var publish: [String]
    /// Subjects it may never publish to, even where `publish` has a wildcard that covers them.
    public var denyPublish: [String]
    /// Subjects it may subscribe to, besides its inbox.
    public var subscribe: [String]
    /// Whether it may answer requests it received.
    public var allowResponses: Bool

    /// Creates a grant.
    public init(publish: [String], denyPublish: [String] = [], subscribe: [String], allowResponses: Bool) {
        self.publish = publish
        self.denyPublish = denyPublish
        self.subscribe = subscribe
        self.allowResponses = allowResponses
    }
}

/// The subjects of the contracts: who answers each request subject and who may send it, and who publishes
/// each event. A request subject takes requests only from the identities whose job is to send them: a
/// chain's later hops only from the service before them, so no one can skip a hop's proof.
public enum BusSubjects {
    /// One request subject: the service that answers it, and the identities that may send it.
    public struct Request: Sendable {
        /// The subject.
        public let subject: String
        /// The identity whose service answers it.
        public let answeredBy: BusIdentity
        /// The identities that may send it.
        public let sentBy: [BusIdentity]
        /// What a request must carry to act, besides coming from one of ``sentBy``.
        public let proof: String

        init<Body, Reply>(_ endpoint: Endpoint<Body, Reply>, answeredBy: BusIdentity, sentBy: [BusIdentity], proof: String) {
            self.subject = endpoint.subject
            self.answeredBy = answeredBy
            self.sentBy = sentBy
            self.proof = proof
        }
    }

    /// Every request subject.
    public static let requests: [Request] = [
        // Logins, links and Apple notifications start at the verifier, which proves the provider's token.
        Request(Endpoints.login, answeredBy: .tokenVerifier, sentBy: [.gateway], proof: "the provider's token"),
        Request(Endpoints.link, answeredBy: .tokenVerifier, sentBy: [.gateway], proof: "the provider's token and the member's access token"),
        Request(Endpoints.verifyAppleNotification, answeredBy: .tokenVerifier, sentBy: [.gateway], proof: "Apple's signature"),
        // A nonce acts on nothing: it is good only in a login or link whose provider token names it.
        Request(Endpoints.issueNonce, answeredBy: .tokenVerifier, sentBy: [.gateway], proof: "none: a nonce alone proves nothing"),
        // A diagnostic for operators: what a provider token proves; no service acts on the answer.
        Request(Endpoints.verify, answeredBy: .tokenVerifier, sentBy: [.operator], proof: "the provider's token"),
        // The member-service takes identities only from the verifier, which proved them.
        Request(Endpoints.memberLogin, answeredBy: .memberService, sentBy: [.tokenVerifier], proof: "the sender: the verifier proved it"),
        Request(Endpoints.memberLinkIdentity, answeredBy: .memberService, sentBy: [.tokenVerifier],
                proof: "the sender (the verifier proved the identity) and the member's access token"),
        Request(Endpoints.memberAppleNotification, answeredBy: .memberService, sentBy: [.tokenVerifier], proof: "the sender: the verifier proved it"),
        // Member-scoped: each carries the member's access token, which the member-service checks.
        Request(Endpoints.memberGet, answeredBy: .memberService, sentBy: [.gateway], proof: "the member's access token"),
        Request(Endpoints.memberUpdate, answeredBy: .memberService, sentBy: [.gateway], proof: "the member's access token"),
        Request(Endpoints.memberDelete, answeredBy: .memberService, sentBy: [.gateway], proof: "the member's access token"),
        Request(Endpoints.memberUnlinkIdentity, answeredBy: .memberService, sentBy: [.gateway], proof: "the member's access token"),
        // The issuer starts a session only for the member a login found or created.
        Request(Endpoints.issueTokens, answeredBy: .tokenIssuer, sentBy: [.memberService], proof: "the sender: the member-service found the member for a proven login"),
        Request(Endpoints.endDeletedMember, answeredBy: .tokenIssuer, sentBy: [.memberService], proof: "the sender: the member-service deleted the member"),
        Request(Endpoints.endIdentitySessions, answeredBy: .tokenIssuer, sentBy: [.memberService], proof: "the sender: the member-service ended the identity"),
        // A refresh carries its refresh token; the session commands the member's access token.
        Request(Endpoints.refreshTokens, answeredBy: .tokenIssuer, sentBy: [.gateway], proof: "the refresh token"),
        Request(Endpoints.logout, answeredBy: .tokenIssuer, sentBy: [.gateway], proof: "the member's access token of that session"),
        Request(Endpoints.logoutAll, answeredBy: .tokenIssuer, sentBy: [.gateway], proof: "the member's access token"),
        Request(Endpoints.listSessions, answeredBy: .tokenIssuer, sentBy: [.gateway], proof: "the member's access token"),
        Request(Endpoints.endSession, answeredBy: .tokenIssuer, sentBy: [.gateway], proof: "the member's access token"),
        // Public keys: anyone who checks access tokens.
        Request(Endpoints.accessTokenKeys, answeredBy: .tokenIssuer, sentBy: [.gateway, .memberService], proof: "none: public keys"),
        Request(Endpoints.endedSessions, answeredBy: .tokenIssuer, sentBy: [.gateway], proof: "none: session IDs only"),
        Request(Endpoints.rotateSigningKeys, answeredBy: .tokenIssuer, sentBy: [.operator], proof: "the sender"),
        // The admin-api's calls: the only ones that act on a member without its proof, for a named admin with a
        // reason, each recorded in the audit trail (SPEC section 9).
        Request(Endpoints.adminFindMembers, answeredBy: .memberService, sentBy: [.adminAPI], proof: "the sender, for a named admin"),
        Request(Endpoints.adminGetMember, answeredBy: .memberService, sentBy: [.adminAPI], proof: "the sender, for a named admin"),
        Request(Endpoints.adminSuspendMember, answeredBy: .memberService, sentBy: [.adminAPI], proof: "the sender, for a named admin with a reason"),
        Request(Endpoints.adminUnsuspendMember, answeredBy: .memberService, sentBy: [.adminAPI], proof: "the sender, for a named admin with a reason"),
        Request(Endpoints.adminDeleteMember, answeredBy: .memberService, sentBy: [.adminAPI], proof: "the sender, for a named admin with a reason"),
        Request(Endpoints.adminListSessions, answeredBy: .tokenIssuer, sentBy: [.adminAPI], proof: "the sender, for a named admin"),
        Request(Endpoints.adminEndSession, answeredBy: .tokenIssuer, sentBy: [.adminAPI], proof: "the sender, for a named admin with a reason"),
        Request(Endpoints.memberSuspension, answeredBy: .tokenIssuer, sentBy: [.memberService], proof: "the sender: the member-service suspended the member or lifted it"),
    ]

    /// The request subjects `identity` may send.
    public static func requests(sentBy identity: BusIdentity) -> [String] {
        requests.filter { $0.sentBy.contains(identity) }.map(\.subject)
    }

    /// The request subjects `identity`'s service answers (subscribes to, in its queue group).
    public static func requests(answeredBy identity: BusIdentity) -> [String] {
        requests.filter { $0.answeredBy == identity }.map(\.subject)
    }

    /// Every service's readiness ping.
    public static let pings = [QueueGroups.tokenVerifier, QueueGroups.memberService, QueueGroups.tokenIssuer]
        .map { Endpoints.ping($0).subject }

    /// What a service answers besides its endpoints: its ping and service discovery (`$SRV`).
    public static func answering(_ queueGroup: String) -> [String] {
        [Endpoints.ping(queueGroup).subject, "$SRV.*", "$SRV.*.\(queueGroup)", "$SRV.*.\(queueGroup).*"]
    }

    /// The event subjects a service publishes (through its outbox).
    public static func events(publishedBy identity: BusIdentity) -> [String] {
        switch identity {
        case .memberService:
            [Events.memberCreated.subject, Events.memberLoggedIn.subject, Events.memberUpdated.subject, Events.memberDeleted.subject,
             Events.identityLinked.subject, Events.identityUnlinked.subject, Events.appleNotification.subject,
             Events.memberSuspended.subject, Events.memberUnsuspended.subject]
        case .tokenIssuer:
            [Events.sessionEnded.subject, Events.refreshTokenReused.subject]
        case .gateway, .tokenVerifier, .adminAPI, .webhookRelay, .operator, .streamAdmin:
            []
        }
    }
}

/// The JetStream API subjects (`$JS.API.…`) each kind of user of the event stream needs.
public enum JetStreamSubjects {
    private static let api = "$JS.API"
    private static let stream = Events.stream

    /// Look up the stream and create it when missing; never edit it (see ``streamAdministration``).
    public static let streamSetUp = ["STREAM.INFO", "STREAM.CREATE"].map { "\(api).\($0).\(stream)" }

    /// Look up the stream (its settings and state), nothing more.
    public static let streamInfo = "\(api).STREAM.INFO.\(stream)"

    /// Edit the stream's settings (never delete or purge it): the stream-admin's alone.
    public static let streamAdministration = ["INFO", "STREAM.INFO.\(stream)", "STREAM.UPDATE.\(stream)", "STREAM.NAMES", "STREAM.LIST"]
        .map { "\(api).\($0)" }

    /// Edit the key-value bucket `bucket`'s settings (turn off the direct gets of the webhook-relay's bucket an earlier
    /// release made): the stream-admin's alone.
    public static func bucketAdministration(_ bucket: String) -> [String] {
        ["\(api).STREAM.INFO.KV_\(bucket)", "\(api).STREAM.UPDATE.KV_\(bucket)"]
    }

    /// Bind, fetch from and acknowledge one durable consumer someone else made, and no other.
    public static func reading(_ name: String) -> [String] {
        ["\(api).CONSUMER.INFO.\(stream).\(name)", "\(api).CONSUMER.MSG.NEXT.\(stream).\(name)", "$JS.ACK.\(stream).\(name).>"]
    }

    /// Create (or set) one durable consumer and look it up, for another identity to read.
    public static func making(_ name: String) -> [String] {
        ["CONSUMER.CREATE.\(stream).\(name)", "CONSUMER.CREATE.\(stream).\(name).>", "CONSUMER.DURABLE.CREATE.\(stream).\(name)",
         "CONSUMER.INFO.\(stream).\(name)"].map { "\(api).\($0)" }
    }

    /// Read the key-value bucket `bucket`, and write (compare-and-set) its `keys` and no other. No direct get: its answer
    /// is the stored value as it is, sent to any reply subject the request names (an event's), so a writer of a key
    /// could publish what it wrote anywhere; `STREAM.MSG.GET` answers in a JSON wrapper.
    public static func keyValue(_ bucket: String, keys: [String]) -> [String] {
        keys.map { "$KV.\(bucket).\($0)" } + ["\(api).STREAM.INFO.KV_\(bucket)", "\(api).STREAM.MSG.GET.KV_\(bucket)"]
    }

    /// Create the key-value bucket `bucket` when it is missing, and read it.
    public static func keyValueSetUp(_ bucket: String) -> [String] {
        ["\(api).STREAM.CREATE.KV_\(bucket)", "\(api).STREAM.INFO.KV_\(bucket)", "\(api).STREAM.MSG.GET.KV_\(bucket)"]
    }

    /// Create, bind, fetch from and acknowledge one durable consumer, and no other.
    public static func durable(_ name: String) -> [String] {
        ["CONSUMER.CREATE.\(stream).\(name)", "CONSUMER.CREATE.\(stream).\(name).>", "CONSUMER.DURABLE.CREATE.\(stream).\(name)",
         "CONSUMER.INFO.\(stream).\(name)", "CONSUMER.MSG.NEXT.\(stream).\(name)"].map { "\(api).\($0)" }
            + ["$JS.ACK.\(stream).\(name).>"]
    }

    /// Every durable consumer's API and acknowledgement subjects: no one's wildcards may reach
    /// another service's consumer (deleting it, or acknowledging its messages unhandled).
    public static let everyDurable = ([Events.Durables.revocations, Events.Durables.sessionsOfDeletedMembers,
                                       Events.Durables.sessionsOfUnlinkedIdentities, Events.Durables.sessionsOfSuspendedMembers,
                                       Events.Durables.sessionsOfUnsuspendedMembers, Events.Durables.audit] + Events.Durables.webhookSlots)
        .flatMap { name in ["\(api).CONSUMER.*.\(stream).\(name)", "\(api).CONSUMER.*.\(stream).\(name).>",
                            "\(api).CONSUMER.MSG.NEXT.\(stream).\(name)", "\(api).CONSUMER.DURABLE.CREATE.\(stream).\(name)",
                            "$JS.ACK.\(stream).\(name).>"] }

    /// The operator's: the stream's and consumers' state, and reading stored events one by one (`nats stream
    /// get`, by sequence or a subject's last). No consumer of its own: whoever creates a consumer chooses
    /// where it delivers, and nats-server checks no permission on that (events follow live on `events.>`).
    public static let inspection = [
        "\(api).INFO", "\(api).STREAM.INFO.\(stream)", "\(api).STREAM.NAMES", "\(api).STREAM.LIST",
        "\(api).CONSUMER.NAMES.\(stream)", "\(api).CONSUMER.LIST.\(stream)",
        "\(api).CONSUMER.INFO.\(stream).*", "\(api).STREAM.MSG.GET.\(stream)", "\(api).DIRECT.GET.\(stream).>",
    ]
}
