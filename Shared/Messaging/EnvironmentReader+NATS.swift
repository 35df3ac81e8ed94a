import Crypto
import NATS
import Runtime

extension EnvironmentReader {
    /// How `identity` signs in to NATS (SPEC section 5): its nkey from `NATS_NKEY_SEED_FILE`
    /// (checked now, so a bad seed stops the service at start naming the variable), its inbox prefix
    /// from ``BusIdentity``, and TLS when any `NATS_TLS_*` is set.
    public func natsAccess(for identity: BusIdentity) throws(ConfigurationError) -> NATSConnection.Access {
        var access = NATSConnection.Access(inboxPrefix: identity.inboxPrefix)
        if let path = optional("NATS_NKEY_SEED_FILE") {
            let data = try Self.readSecretFile(path, variable: "NATS_NKEY_SEED_FILE", maxBytes: 1024)
            do {
                let key = try NKey(seed: String(decoding: data, as: UTF8.self))
                access.nkey = NATSConnection.NKeyCredentials(publicKey: key.publicKey, seedFile: path)
            } catch {
                throw ConfigurationError(variable: "NATS_NKEY_SEED_FILE", problem: "\(String(reflecting: path)) holds no NATS user nkey seed (SU…)")
            }
        }
        let caFile = try tlsFile("NATS_TLS_CA_FILE")
        let certificateFile = try tlsFile("NATS_TLS_CERT_FILE")
        let keyFile = try tlsFile("NATS_TLS_KEY_FILE")
        if (certificateFile == nil) != (keyFile == nil) {
            throw ConfigurationError(variable: certificateFile == nil ? "NATS_TLS_CERT_FILE" : "NATS_TLS_KEY_FILE",
                                     problem: "NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together: set both or neither")
        }
        if caFile != nil || certificateFile != nil {
            access.tls = NATSConnection.TLS(caFile: caFile, certificateFile: certificateFile, keyFile: keyFile)
        }
        return access
    }

    /// A TLS file's path, checked to be a readable regular file of at most 1 MiB (a CA bundle is a few
    /// hundred KiB; the contents are cnats's to parse).
    private func tlsFile(_ name: String) throws(ConfigurationError) -> String? {
        guard let path = optional(name) else { return nil }
        _ = try Self.readSecretFile(path, variable: name, maxBytes: 1024 * 1024)
        return path
    }
}
