extension HTTPClient {
    /// Which addresses an `HTTPClient` may connect to.
    ///
    /// The check is made on the address libcurl is about to connect to, after DNS and on every attempt, so a
    /// host name that resolves (or is rebound) to an internal address is refused as well as the address itself.
    public struct DestinationPolicy: Sendable, Equatable {
        private enum Code: Sendable, Equatable {
            case any, publicOnly
        }

        private let code: Code

        private init(_ code: Code) {
            self.code = code
        }

        /// Any address, loopback and private networks included, through the proxy the environment names, if any:
        /// for calls to fixed hosts the service trusts (the default).
        public static let any = DestinationPolicy(.any)

        /// Public unicast addresses only, for URLs that others configure (webhooks): loopback, private, link-local
        /// (cloud metadata at 169.254.169.254), carrier-grade NAT, unique local (`fd00:ec2::254`), multicast,
        /// reserved and documentation addresses, and IPv4 ones inside IPv6, fail with
        /// `HTTPClientError.destinationRefused` (the list is `AddressRange.nonPublic`). No proxy is used, not even
        /// one the environment names (`http_proxy`, `ALL_PROXY`): through a proxy the address checked would be the proxy's.
        public static let publicOnly = DestinationPolicy(.publicOnly)
    }
}
