import CNats

/// Opens cnats once, before its first use, with the settings this module wants.
enum NATSLibrary {
    /// Opened on first access. cnats otherwise opens itself lazily with a lock spin count of 2000:
    /// every contended lock then spins up to 2000 `trylock`s before it sleeps, which on a machine with
    /// few cores burns the CPU the lock's holder needs (2.6% of the gateway's samples under load).
    /// With 0 a contended lock sleeps at once.
    static let opened: Void = {
        // Every cnats call of this module comes after this one (RequestMultiplexer.init and
        // NATSConnection.open touch it first), so cnats is not open yet and takes the count. Were it
        // open, nats_Open would answer NATS_OK and keep its count: usable either way.
        _ = nats_Open(0)
    }()
}
