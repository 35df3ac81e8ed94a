/// Supplies the `deviceId` the backend keys sessions by: one session per (member, device), so
/// it must stay the same across launches and sign-ins of one installation.
public protocol DeviceIdentifierProvider: Sendable {
    /// The device identifier (1 to 255 bytes).
    func deviceIdentifier() async throws -> String
}
