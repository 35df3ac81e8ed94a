/// A `DeviceIdentifierProvider` for an identifier the app already has (its own installation ID,
/// `UIDevice.current.identifierForVendor`).
public struct FixedDeviceIdentifier: DeviceIdentifierProvider {
    /// The identifier sent as `deviceId`.
    public let identifier: String

    /// Uses `identifier` (1 to 255 bytes).
    public init(_ identifier: String) {
        self.identifier = identifier
    }

    public func deviceIdentifier() -> String { identifier }
}
