/// How far a backup has gone, reported after each step of
/// ``DatabaseReader/backup(to:pagesPerStep:progress:)``.
///
/// ```swift
/// try source.backup(to: destination, pagesPerStep: 100) { progress in
///     print("\(progress.completedPageCount) of \(progress.totalPageCount) pages")
/// }
/// ```
public struct DatabaseBackupProgress: Sendable {
    /// The pages still to copy.
    public let remainingPageCount: Int

    /// The pages of the source database.
    public let totalPageCount: Int

    /// The pages copied so far.
    public var completedPageCount: Int { totalPageCount - remainingPageCount }

    /// True after the last step.
    public let isCompleted: Bool
}
