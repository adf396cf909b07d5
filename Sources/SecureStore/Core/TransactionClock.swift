import Foundation

/// Where ``Database/transactionDate`` comes from:
/// ``Configuration/transactionClock``.
///
/// ```swift
/// var config = Configuration()
/// config.transactionClock = .custom { _ in Date(timeIntervalSince1970: 0) }   // tests
/// ```
///
/// ## Topics
///
/// ### Clocks
///
/// - ``DefaultTransactionClock``
/// - ``CustomTransactionClock``
public protocol TransactionClock: Sendable {
    /// The current date, asked for once per transaction.
    func now(_ db: Database) throws -> Date
}

extension TransactionClock where Self == DefaultTransactionClock {
    /// The system clock.
    public static var `default`: Self { DefaultTransactionClock() }
}

extension TransactionClock where Self == CustomTransactionClock {
    /// A clock of your own, such as a fixed date in tests.
    public static func custom(_ now: @escaping @Sendable (Database) throws -> Date) -> Self {
        CustomTransactionClock(now)
    }
}

/// The system clock: `Date()`.
public struct DefaultTransactionClock: TransactionClock {
    /// `Date()`.
    public func now(_ db: Database) throws -> Date { Date() }
}

/// A clock that calls a function.
public struct CustomTransactionClock: TransactionClock {
    private let read: @Sendable (Database) throws -> Date

    /// A clock that asks `now` for the date.
    public init(_ now: @escaping @Sendable (Database) throws -> Date) {
        read = now
    }

    /// What the function returns.
    public func now(_ db: Database) throws -> Date { try read(db) }
}
