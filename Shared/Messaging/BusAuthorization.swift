/// nats-server's `authorization` block made from ``BusIdentity``: one user per identity, known by
/// its nkey's public key, allowed exactly its ``BusGrant`` and its own inbox. A client with no
/// listed key cannot connect. Include it from the server's configuration (`include auth.conf`).
public enum BusAuthorization {
    /// An extra user outside the table, for tests only: allowed everything.
    public struct Unrestricted: Sendable {
        /// Its public key (`U…`).
        public var publicKey: String
        /// A name for the comment above it.
        public var name: String

        /// Creates one.
        public init(publicKey: String, name: String) {
            self.publicKey = publicKey
            self.name = name
        }
    }

    /// The block for these public keys; an identity without a key is left out (it cannot connect).
    public static func serverConfiguration(publicKeys: [BusIdentity: String], unrestricted: [Unrestricted] = []) -> String {
        var lines = ["# Made by `nats-auth config` from BusIdentity (Shared/Messaging/BusIdentity.swift). Do not edit:",
                     "# change the table and make it again. Every identity may do only what is listed.",
                     "authorization {", "  users = ["]
        for identity in BusIdentity.allCases {
            guard let key = publicKeys[identity] else { continue }
            let grant = identity.grant
            lines.append("    # \(identity.rawValue)")
            lines.append("    {")
            lines.append("      nkey: \(quoted(key))")
            lines.append("      permissions: {")
            lines.append("        publish: { allow: \(list(grant.publish))\(grant.denyPublish.isEmpty ? "" : ", deny: \(list(grant.denyPublish))") }")
            lines.append("        subscribe: { allow: \(list(grant.subscribe + [identity.inboxPrefix + ".>"])) }")
            if grant.allowResponses { lines.append("        allow_responses: { max: 1, expires: \"1m\" }") }
            lines.append("      }")
            lines.append("    }")
        }
        for user in unrestricted {
            lines.append("    # \(user.name): unrestricted (tests only)")
            lines.append("    { nkey: \(quoted(user.publicKey)) }")
        }
        lines += ["  ]", "}", ""]
        return lines.joined(separator: "\n")
    }

    /// The README's tables: one row per identity, then one per request subject with who may send it and
    /// the proof it must carry.
    public static func markdownTable() -> String {
        var rows = ["| identity | publishes (requests, events, JetStream API) | subscribes (besides its inbox `_INBOX_<identity>.>`) | answers requests |",
                    "|---|---|---|---|"]
        for identity in BusIdentity.allCases {
            let grant = identity.grant
            var publish = grant.publish.map { "`\($0)`" }.joined(separator: " ")
            if !grant.denyPublish.isEmpty {
                publish += "; never " + grant.denyPublish.map { "`\($0)`" }.joined(separator: " ")
            }
            let subscribe = grant.subscribe.isEmpty ? "none" : grant.subscribe.map { "`\($0)`" }.joined(separator: " ")
            rows.append("| \(identity.rawValue) | \(publish) | \(subscribe) | \(grant.allowResponses ? "yes, once each" : "no") |")
        }
        rows += ["", "| request subject | answered by | sent by (no one else may publish it) | what it must carry to act |", "|---|---|---|---|"]
        for request in BusSubjects.requests {
            rows.append("| `\(request.subject)` | \(request.answeredBy.rawValue) | \(request.sentBy.map(\.rawValue).joined(separator: ", ")) | \(request.proof) |")
        }
        return rows.joined(separator: "\n") + "\n"
    }

    private static func list(_ subjects: [String]) -> String {
        "[" + subjects.map(quoted).joined(separator: ", ") + "]"
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text + "\""
    }
}
