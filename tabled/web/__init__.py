"""The pushed pages, served once for every page server (the dealer's screen and the pit's view,
tabled/daemon/web.py; the floor, tabled/floor/service.py): who may look (access), the names and
connections a server takes (listen), TLS off this PC (tls), the latest-only stream of Server-Sent
Events (stream), the files of the pages (assets) and the settings a page's section configures
(settings)."""
