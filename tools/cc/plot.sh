#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# plot.sh [-t TITLE] [-r MBIT] [-w START:END] CSV PNG: the rates of the
# flows of one congestion-control case (selftests/swroce_cc.sh) over time,
# a line per flow, as a PNG (gnuplot: gnuplot-nox, make deps).
#   CSV          time_s,flow,mbit_s with a header line; flows numbered 1..N
#   -t TITLE     the plot's title (default: the CSV's name)
#   -r MBIT      the bottleneck's rate: a dashed line at MBIT and one at
#                MBIT / N, the fair share
#   -w S:E       the measurement window, seconds: a grey band
# Exit status: gnuplot's; 2 usage, 1 no data or no gnuplot.

set -u
usage() { sed -n '4,12p' "$0" >&2; exit 2; }

title='' rate='' win=''
while getopts "t:r:w:h" opt; do
	case "$opt" in
	t) title=$OPTARG ;;
	r) [[ "$OPTARG" =~ ^[0-9.]+$ ]] || usage; rate=$OPTARG ;;
	w) [[ "$OPTARG" =~ ^[0-9.]+:[0-9.]+$ ]] || usage; win=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
csv=$1 png=$2
command -v gnuplot >/dev/null || { echo "plot.sh: no gnuplot" >&2; exit 1; }
n=$(awk -F, 'NR > 1 && $2 > n { n = $2 } END { print n + 0 }' "$csv") ||
	exit 1
[ "$n" -gt 0 ] || { echo "plot.sh: no data in $csv" >&2; exit 1; }
[ -n "$title" ] || title=${csv##*/}

# gnuplot strings in double quotes: escape backslashes and quotes
gq() { printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"; }

{
	echo 'set terminal pngcairo size 900,540 noenhanced'
	echo "set output $(gq "$png")"
	echo "set title $(gq "$title")"
	echo 'set datafile separator ","'
	echo 'set key outside right'
	echo 'set grid'
	echo 'set xlabel "time (s)"'
	echo 'set ylabel "Mbit/s"'
	echo 'set xrange [0:*]'
	echo 'set yrange [0:*]'
	echo 'set offsets 0, 0, graph 0.08, 0'
	if [ -n "$win" ]; then
		echo "set object 1 rect from ${win%:*}, graph 0 to ${win#*:}, graph 1 behind fc rgb \"#e8e8e8\" fs solid noborder"
		echo "set label 1 \"window\" at $(awk -v a="${win%:*}" -v b="${win#*:}" 'BEGIN { print (a + b) / 2 }'), graph 0.97 center"
	fi
	# a block per flow (two blank lines apart: gnuplot's "index"), each
	# sorted by time, so that every flow's points make one line
	# shellcheck disable=SC2016 # a gnuplot datablock, not a shell variable
	echo '$rates << EOD'
	for f in $(seq 1 "$n"); do
		awk -F, -v f="$f" 'NR > 1 && $2 == f' "$csv" | sort -t, -k1,1g
		printf '\n\n'
	done
	echo 'EOD'
	plot="plot for [f=1:$n] \$rates index (f - 1) using 1:3 with linespoints pt 7 ps 0.6 title sprintf(\"flow %d\", f)"
	if [ -n "$rate" ]; then
		plot+=", $rate with lines dt 2 lc rgb \"black\" title \"bottleneck $rate\""
		plot+=", $rate / $n with lines dt 3 lc rgb \"grey40\" title \"fair share\""
	fi
	echo "$plot"
} | gnuplot
