/// Decides which items of a feed are preloaded: a value that the preloader alone changes, returning what to
/// do (start, cancel, settle), so that every decision is tested without a download.
///
/// The window is the current item, then the items within `itemsAhead` after it and `itemsBehind` before it,
/// ranked by distance, every item ahead before those behind. Downloads start in rank order, at most
/// `maximumConcurrentDownloads` at a time; with `waitsForCurrentItem`, none but the current item's until it
/// has loaded. The current item stays in the window, so the download of an item the user lands on goes on
/// (its player shares it). An item that leaves the window is cancelled at once if it runs, and settled (its
/// bytes counted as played or wasted) once it has stopped.
struct PreloadSchedule: Sendable {
    enum Status: Sendable, Equatable {
        case running
        case loaded
        case failed
    }

    enum Action: Sendable, Equatable {
        /// Start preloading the item.
        case start(String)
        /// Stop its download; settle it when it has stopped.
        case cancel(String)
        /// Count what it preloaded as played or wasted: it left the window after it stopped.
        case settle(String)
    }

    let configuration: PreloadConfiguration
    private(set) var items: [PreloadItem] = []
    private(set) var current: Int?
    /// The items started and still in the window.
    private(set) var status: [String: Status] = [:]
    private var stopped = false

    init(configuration: PreloadConfiguration) {
        self.configuration = configuration
    }

    /// The ids of the window, best ranked first.
    var window: [String] {
        guard let current, items.indices.contains(current) else { return [] }
        var ranked: [(distance: Int, id: String)] = []
        var seen = Set<String>()
        let low = max(0, current - configuration.itemsBehind)
        let high = min(items.count - 1, current + configuration.itemsAhead)
        for index in low...high {
            let distance = index - current
            // Every item ahead before those behind: feeds go forward far more often, and the item just left
            // is usually cached already.
            ranked.append((distance >= 0 ? distance : items.count + abs(distance), items[index].id))
        }
        return ranked.sorted { $0.distance < $1.distance }.map(\.id).filter { seen.insert($0).inserted }
    }

    /// The item with `id`.
    func item(_ id: String) -> PreloadItem? {
        items.first { $0.id == id }
    }

    /// A new list of items, and the current one's index.
    mutating func setItems(_ items: [PreloadItem], current: Int?) -> [Action] {
        self.items = items
        self.current = current.flatMap { items.indices.contains($0) ? $0 : nil }
        return reconcile()
    }

    /// The user moved to the item at `index`.
    mutating func setCurrent(_ index: Int?) -> [Action] {
        current = index.flatMap { items.indices.contains($0) ? $0 : nil }
        return reconcile()
    }

    /// A download ended: it reached its target (`loaded`) or failed. Ignored for an item no longer running.
    mutating func finished(_ id: String, loaded: Bool) -> [Action] {
        guard status[id] == .running else { return [] }
        status[id] = loaded ? .loaded : .failed
        return reconcile()
    }

    /// Stops everything: cancels what runs, settles what has stopped; nothing starts again.
    mutating func stop() -> [Action] {
        stopped = true
        current = nil
        return reconcile()
    }

    private mutating func reconcile() -> [Action] {
        var actions: [Action] = []
        let window = stopped ? [] : window
        let inWindow = Set(window)
        for (id, state) in status.sorted(by: { $0.key < $1.key }) where !inWindow.contains(id) {
            actions.append(state == .running ? .cancel(id) : .settle(id))
            status[id] = nil
        }
        var running = status.values.filter { $0 == .running }.count
        let currentID = current.map { items[$0].id }
        let currentDone =
            !configuration.waitsForCurrentItem || currentID == nil || [.loaded, .failed].contains(status[currentID!])
        for id in window where status[id] == nil && running < configuration.maximumConcurrentDownloads {
            guard id == currentID || currentDone else { continue }
            status[id] = .running
            running += 1
            actions.append(.start(id))
        }
        return actions
    }
}
