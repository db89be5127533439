# The median of repeated measurements, for the scripts that alternate runs in
# rounds (ga_compare.sh, peer_compare.sh, bench_all.sh).  Input lines: KEY
# VALUE, KEY without blanks.  Output, one line per key in the order first
# seen: KEY MEDIAN MIN MAX COUNT.
{ if (!($1 in n)) order[k++] = $1; v[$1, ++n[$1]] = $2 + 0 }
END {
  for (i = 0; i < k; i++) {
    key = order[i]
    c = n[key]
    for (x = 1; x <= c; x++) a[x] = v[key, x]
    for (x = 2; x <= c; x++) {  # insertion sort: a handful of rounds
      t = a[x]
      for (y = x - 1; y >= 1 && a[y] > t; y--) a[y + 1] = a[y]
      a[y + 1] = t
    }
    print key, (c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2), a[1], a[c], c
  }
}
