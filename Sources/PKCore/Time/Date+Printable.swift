import Foundation

extension Date {
    /// `description`, except for a NaN date: its `description` traps in swift-foundation (it converts the time
    /// to an integer), so printing a delay or a credential made from a NaN date would end the process.
    package var printableDescription: String {
        timeIntervalSinceReferenceDate.isNaN ? "an invalid date (NaN)" : description
    }
}
