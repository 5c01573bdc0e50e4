import Foundation

/// The address a printed URL names: the bound one, or for a wildcard (`0.0.0.0`, `::`), an address
/// of this machine another one can connect to.
enum ReachableAddress {
    static func forURL(boundTo host: String) -> String {
        let wildcard = ["0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0"].contains(host)
        guard wildcard else { return host.contains(":") ? "[\(host)]" : host }
        let family = host.contains(":") ? AF_INET6 : AF_INET
        if let address = firstExternal(family: family) ?? firstExternal(family: AF_INET) {
            return address.contains(":") ? "[\(address)]" : address
        }
        return ProcessInfo.processInfo.hostName
    }

    /// The first up, non-loopback interface address of `family` (IPv6 link-local ones left out).
    private static func firstExternal(family: Int32) -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        // The list is read only here, before freeifaddrs.
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let interface = entry.pointee
            guard let address = interface.ifa_addr, Int32(address.pointee.sa_family) == family,
                interface.ifa_flags & UInt32(IFF_UP) != 0, interface.ifa_flags & UInt32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else {
                continue
            }
            let name = String(decoding: text.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
            if name.hasPrefix("fe80") { continue }
            return name
        }
        return nil
    }
}
