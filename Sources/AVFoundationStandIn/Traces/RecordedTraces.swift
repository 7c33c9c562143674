#if os(Linux)
/// AVPlayer request sequences recorded from real AVPlayer builds (iOS 13 to iOS 26), collected from public
/// logs, issue threads and articles, one JSON trace per line; each trace's `source` says where it was
/// published and `notes` what it shows and what was inferred. They ship inside the package so that the
/// tests and `spool simulate` need nothing beside it.
///
/// Fields: `info` / `data` (the request carries a content-information / data request; both may be true),
/// `offset` and `length` (`requestedOffset`, `requestedLength`; `null` means to the end of the resource),
/// `cancel_after` (bytes received before the player cancelled; `null`: not cancelled), `open_with` (indices of
/// earlier requests still open when this one starts), `file_size` (`null`: replayed against 8 MiB).
///
/// Replay rules: requests are issued in order, each once the earlier ones not in its `open_with` have ended;
/// a to-end request never cancelled is read for at most 4 MiB and then cancelled (the recording ends there);
/// every byte is compared, every request is finished exactly once or cancelled, nothing touches a request
/// after it ended.
enum RecordedTraces {
    static let jsonLines = ##"""
        {"id": "zhgchgli-2021-mp3-ios13plus", "source": "ZhgChgLi, 'AVPlayer 實踐本地 Cache 功能大全' (Medium, 2021-01-31); \##
        markdown mirror github.com/ZhgChgLi/zhgchgli.github.io _posts/2021-01-31-6ce488898003.md; code \##
        zhgchgli0718/resourceLoaderDemo, later ZhgChgLi/ZPlayerCacher", "platform": "iOS >= 13 (stated: 'iOS <= 12 \##
        first sends a few shorter probing requests, iOS >= 13 directly requests to the total length'); exact \##
        device/OS not stated", "container": "mp3 (music streaming app; files <= ~10 MB stated)", "file_size": \##
        150000, "requests": [{"info": true, "data": false, "offset": 0, "length": 2, "cancel_after": null, \##
        "open_with": []}, {"info": false, "data": true, "offset": 0, "length": null, "cancel_after": 700, \##
        "open_with": []}, {"info": false, "data": true, "offset": 700, "length": null, "cancel_after": 800, \##
        "open_with": []}, {"info": false, "data": true, "offset": 1500, "length": null, "cancel_after": 500, \##
        "open_with": []}, {"info": false, "data": true, "offset": 5000, "length": null, "cancel_after": null, \##
        "open_with": []}], "notes": "Values (150000, 700, 1500, 2000, 5000) are illustrative numbers in the \##
        author's example (they are smaller than the 16 KB delivery pieces the author mentions), so only the SHAPE \##
        is evidence: probe 0-1 -> request to end -> cancelled once 'enough' is buffered -> later a new request to \##
        end starting at the current offset -> seek cancels the in-flight request first, then a new to-end request \##
        at the seek target. Stated: cancel happens (1) after enough data for the first to-end request and (2) \##
        before a seek; NO cancel is sent when AVQueuePlayer advances to the next item or AVPlayer replaces its \##
        item. AVQueuePlayer pre-buffering of the next item also goes through the resource loader but asks for \##
        smaller ranges (no numbers given). Stated trap: a new request can arrive before the cancel of the old one \##
        (order not guaranteed) - so keep a dictionary keyed by AVAssetResourceLoadingRequest rather than a single \##
        'current request'. mitmproxy showed the response only after it completed, misleading the author into \##
        thinking AVPlayer fetched whole files. No timing numbers."}
        {"id": "dvassetloaderdelegate-issue11-ios13", "source": "github.com/vdugnist/DVAssetLoaderDelegate issue \##
        #11 'iOS 13' (2020-03-03); related #10 'Doesn't support iOS 13'", "platform": "iOS 13 (stated)", \##
        "container": "not stated (video)", "file_size": null, "requests": [{"info": true, "data": false, "offset": \##
        0, "length": 2, "cancel_after": null, "open_with": []}, {"info": false, "data": true, "offset": 0, \##
        "length": null, "cancel_after": null, "open_with": []}], "notes": "Trap: the origin answered 'bytes=0-' \##
        with 200 and no Content-Range; the library's range check rejected the body, so playback failed on iOS 13. \##
        Fix proposed: accept a 200 body when the requested range is '0-'."}
        {"id": "ktvhttpcache-issue57-mp3-http", "source": "github.com/ChangbaDevs/KTVHTTPCache issue #57 (onekyle \##
        2018-05-17; maintainer libobjc replies)", "platform": "not stated (2018); AVPlayer against a local HTTP \##
        proxy (KTVHTTPCache)", "container": "mp3 (small)", "file_size": null, "requests": [{"info": true, "data": \##
        false, "offset": 0, "length": 2, "cancel_after": null, "open_with": []}, {"info": false, "data": true, \##
        "offset": 2, "length": null, "cancel_after": null, "open_with": []}], "notes": "Over HTTP the second \##
        request starts at byte 2, not 0 (unlike the resource-loader traces where the data request restarts at 0). \##
        Reporter: AVPlayer did not start playing until the whole mp3 was cached; maintainer: data is passed back in \##
        real time so slice size is irrelevant - set AVPlayer.automaticallyWaitsToMinimizeStalling = NO; reporter \##
        confirmed that worked."}
        {"id": "jooby-issue523-macos-safari9-mp3-no-range-server", "source": "github.com/jooby-project/jooby issue \##
        #523 (S66D comment 2016-10-26)", "platform": "macOS 10.11.6, Safari 9.1.3 (UA stated); second request UA \##
        'AppleCoreMedia/1.0.0.15G1004'", "container": "mp3", "file_size": null, "requests": [{"info": true, "data": \##
        false, "offset": 0, "length": 2, "cancel_after": null, "open_with": []}, {"info": false, "data": true, \##
        "offset": 0, "length": null, "cancel_after": null, "open_with": []}], "notes": "Shows the fallback when the \##
        server does not support ranges: the probe is followed by a plain GET from CoreMedia. The same thread \##
        reports video (mp4) from that server not playing in Safari."}
        {"id": "invidious-companion-pr386-iphone-safari-unknown-total", "source": \##
        "github.com/iv-org/invidious-companion pull #386 (ldpreload, 2026-09-18)", "platform": "iPhone Safari (iOS \##
        version not stated)", "container": "mp4 (progressive itag 18)", "file_size": null, "requests": [{"info": \##
        true, "data": false, "offset": 0, "length": 2, "cancel_after": null, "open_with": []}, {"info": false, \##
        "data": true, "offset": 0, "length": null, "cancel_after": null, "open_with": []}], "notes": "Failure \##
        trace: unknown total ('/*') on the probe plus a 200 without Content-Range on the follow-up made WebKit \##
        abandon the media. Fixed by answering every range with 206 and a real total."}
        {"id": "local-cache-player-bbb-run-A", "source": "github.com/phucdh97/local-cache-player \##
        VideoDemo/logs/log.md (commit 5ba79a3, Jan 2026); implementation VideoDemo/VideoDemo/ResourceLoader.swift \##
        (ZPlayerCacher-derived)", "platform": "iOS, deployment target 26.2 (project file); simulator inferred from \##
        log noise (LoudnessManager, Thread Performance Checker)", "container": "mp4 (BigBuckBunny.mp4 from \##
        commondatastorage.googleapis.com gtv-videos-bucket); moov position not stated", "file_size": 158008374, \##
        "requests": [{"info": true, "data": false, "offset": 0, "length": 2, "cancel_after": null, "open_with": \##
        []}, {"info": false, "data": true, "offset": 0, "length": null, "cancel_after": 13194, "open_with": []}, \##
        {"info": false, "data": true, "offset": 65536, "length": null, "cancel_after": 151664, "open_with": []}, \##
        {"info": false, "data": true, "offset": 13194, "length": 52342, "cancel_after": null, "open_with": []}, \##
        {"info": false, "data": true, "offset": 217200, "length": null, "cancel_after": 1048576, "open_with": []}], \##
        "notes": "Shape: info -> to-end@0 cancelled after the first ~13 KB -> to-end@65536 (64 KiB boundary) \##
        cancelled after ~148 KB -> bounded gap fill 13194..65536 -> to-end from exactly where the previous \##
        cancelled request's data ended (217200). The gap-fill and follow-up offsets equal the bytes delivered \##
        before each cancel. No timestamps in the log, so no timing. Each request appeared only after the previous \##
        one was cancelled/finished in log order (no overlap seen). On item switch AVPlayer issued no didCancel; the \##
        delegate's deinit cancelled '2 active requests'."}
        {"id": "local-cache-player-ed-run-A", "source": "github.com/phucdh97/local-cache-player \##
        VideoDemo/logs/log.md (second half)", "platform": "iOS, deployment target 26.2; simulator inferred", \##
        "container": "mp4 (ElephantsDream.mp4, same Google sample bucket)", "file_size": 169612362, "requests": \##
        [{"info": true, "data": false, "offset": 0, "length": 2, "cancel_after": null, "open_with": []}, {"info": \##
        false, "data": true, "offset": 0, "length": null, "cancel_after": 13194, "open_with": []}, {"info": false, \##
        "data": true, "offset": 65536, "length": null, "cancel_after": 146064, "open_with": []}, {"info": false, \##
        "data": true, "offset": 13194, "length": 52342, "cancel_after": null, "open_with": []}, {"info": false, \##
        "data": true, "offset": 211600, "length": null, "cancel_after": null, "open_with": []}], "notes": \##
        "Identical shape to the BigBuckBunny run (same 13194 first-cancel point, same jump to 65536, same gap \##
        fill), different cancel point for the second request (146064 vs 151664 bytes)."}
        {"id": "local-cache-player-bbb-run-B", "source": "github.com/phucdh97/local-cache-player \##
        VideoDemo/logs/new_lauch_app_1st.md (commit 3627c68); earlier variant VideoDemo/logs/lauch_app_1st.md", \##
        "platform": "iOS, deployment target 26.2; simulator inferred", "container": "mp4 (BigBuckBunny.mp4)", \##
        "file_size": 158008374, "requests": [{"info": true, "data": false, "offset": 0, "length": 2, \##
        "cancel_after": null, "open_with": []}, {"info": false, "data": true, "offset": 0, "length": null, \##
        "cancel_after": 13201, "open_with": []}, {"info": false, "data": true, "offset": 65536, "length": null, \##
        "cancel_after": 118896, "open_with": []}, {"info": false, "data": true, "offset": 13201, "length": 52335, \##
        "cancel_after": null, "open_with": []}, {"info": false, "data": true, "offset": 184432, "length": null, \##
        "cancel_after": 1048576, "open_with": []}], "notes": "Same shape; the first cancel point follows the size \##
        of the first network chunk (13201 here vs 13194). In lauch_app_1st.md the same sequence had the follow-up \##
        to-end request at 195222. 'Active requests before removal: 2' at each didCancel - probably the finished \##
        info request still held in the delegate's dictionary (inference), so not evidence of AVPlayer concurrency."}
        {"id": "local-cache-player-offline-replay-retries", "source": "github.com/phucdh97/local-cache-player \##
        VideoDemo/logs/new_lauch_app_again.md (and older logs/lauch_app_again.md)", "platform": "iOS, deployment \##
        target 26.2; simulator inferred; network offline during the run", "container": "mp4 (BigBuckBunny.mp4, then \##
        ElephantsDream.mp4)", "file_size": 158008374, "requests": [{"info": true, "data": false, "offset": 0, \##
        "length": 2, "cancel_after": null, "open_with": []}, {"info": false, "data": true, "offset": 0, "length": \##
        null, "cancel_after": null, "open_with": []}, {"info": false, "data": true, "offset": 26143685, "length": \##
        null, "cancel_after": null, "open_with": []}, {"info": false, "data": true, "offset": 26143685, "length": \##
        null, "cancel_after": null, "open_with": []}, {"info": false, "data": true, "offset": 26143685, "length": \##
        null, "cancel_after": 1048576, "open_with": []}], "notes": "AVPlayer accepted a single ~25 MB \##
        respond(with:) and kept the request open; after an error finish it re-issued the identical to-end request \##
        from the first missing byte repeatedly (6-7 times observed, no timestamps). Older run (lauch_app_again.md): \##
        5.62 MB cached, same retry loop at 5887966."}
        """##
}
#endif
