import XCTest
final class PlaceholderAdapterTests: XCTestCase {}
