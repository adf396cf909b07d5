import Foundation

/// The `NotificationCenter` observers of a queue or pool opened with
/// ``Configuration/observesSuspensionNotifications``: they suspend and
/// resume its writer connection, and go when the queue or pool goes.
final class SuspensionObserver: @unchecked Sendable {
    // @unchecked: `observers` is written once, in init.
    private var observers: [any NSObjectProtocol] = []

    /// Observes the notifications for `connection` when `configuration`
    /// asks for it; nil otherwise.
    static func observing(_ connection: SerializedDatabase, if configuration: Configuration) -> SuspensionObserver? {
        configuration.observesSuspensionNotifications ? SuspensionObserver(connection) : nil
    }

    private init(_ connection: SerializedDatabase) {
        let center = NotificationCenter.default
        observers = [
            center.addObserver(forName: Database.suspendNotification, object: nil, queue: nil) { [weak connection] _ in
                connection?.suspend()
            },
            center.addObserver(forName: Database.resumeNotification, object: nil, queue: nil) { [weak connection] _ in
                connection?.resume()
            },
        ]
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }
}
