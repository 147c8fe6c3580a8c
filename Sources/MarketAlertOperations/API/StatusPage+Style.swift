extension StatusPage {
    /// The page's own stylesheet (no external assets): light and dark schemes, severity colours, and tables that
    /// turn into stacked cards on narrow screens.
    package static let style = """
        :root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b6570;--bg:#fff;--line:#d8dee4;--head:#f3f5f7;\
        --notice:#0b62c4;--warning:#b35c00;--critical:#c01d1d;--ok:#1a7f37}
        @media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9aa5b1;--bg:#0d1117;--line:#30363d;--head:#161b22}}
        *{box-sizing:border-box}
        body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK TC",sans-serif;color:var(--fg);background:var(--bg)}
        header,main,footer{max-width:1240px;margin:0 auto;padding:12px 20px}
        header{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 14px;border-bottom:1px solid var(--line)}
        h1{font-size:20px;margin:0}
        h2{font-size:16px;margin:22px 0 8px}
        h2 .count{color:var(--muted);font-weight:normal}
        #status-line{margin:0;flex:1 1 420px;overflow-wrap:anywhere}
        .meta,footer{color:var(--muted);font-size:12px;margin:0;flex-basis:100%;overflow-wrap:anywhere}
        .badge{margin:0;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;background:var(--muted)}
        .badge.ready{background:var(--ok)}
        table{width:100%;border-collapse:collapse}
        th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:break-word}
        th{background:var(--head);font-weight:600;white-space:nowrap}
        td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
        td.spark svg{display:block;max-width:100%;height:auto;color:#1565c0}
        tr.firing-notice td:first-child{box-shadow:inset 3px 0 var(--notice)}
        tr.firing-warning td:first-child{box-shadow:inset 3px 0 var(--warning)}
        tr.firing-critical td:first-child{box-shadow:inset 3px 0 var(--critical)}
        tr.firing-warning,tr.firing-critical{font-weight:600}
        tr.health-down td,tr.health-alerting td{color:var(--critical)}
        tr.health-waiting td,tr.health-idle td{color:var(--muted)}
        .empty{color:var(--muted);margin:4px 0}
        a{color:inherit}
        @media (max-width:720px){
        header,main,footer{padding:10px 12px}
        table,thead,tbody,tr,th,td{display:block}
        thead{position:absolute;left:-9999px}
        tr{border:1px solid var(--line);border-radius:6px;margin:0 0 10px;padding:4px 0}
        td{border:0;padding:2px 10px 2px 36%;position:relative;min-height:22px;overflow-wrap:anywhere}
        td::before{content:attr(data-label);position:absolute;left:10px;width:32%;color:var(--muted);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
        td.num{text-align:left;white-space:normal}
        tr.firing-notice,tr.firing-warning,tr.firing-critical{border-left-width:4px}
        tr.firing-notice{border-left-color:var(--notice)}tr.firing-warning{border-left-color:var(--warning)}tr.firing-critical{border-left-color:var(--critical)}
        tr td:first-child{box-shadow:none!important}
        }
        """
}
