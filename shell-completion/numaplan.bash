# bash completion for numaplan: commands, their options, unit names and PCI addresses.
# Installed into bash-completion's completionsdir, which loads it on demand for `numaplan`; it
# uses bash-completion's helpers (_init_completion, _filedir), so paths with spaces, `~` and
# `--config=FILE` complete as for any command.

# $1 with the shell's quoting taken off, as the command will see it, without expanding anything
# (the line is the user's, but completing must not run it).
_numaplan_dequote() {
	local s=$1 out= c q=
	[[ $s == "~/"* ]] && s=$HOME/${s#"~/"}
	while [ -n "$s" ]; do
		c=${s:0:1} s=${s:1}
		if [ "$q" = "'" ]; then
			if [ "$c" = "'" ]; then q=; else out+=$c; fi
		elif [ "$c" = '\' ] && { [ -z "$q" ] || [[ ${s:0:1} == [\"\\\$\`] ]]; }; then
			out+=${s:0:1} s=${s:1}
		elif [ "$c" = '"' ]; then
			if [ -n "$q" ]; then q=; else q=\"; fi
		elif [ "$c" = "'" ] && [ -z "$q" ]; then
			q=\'
		else
			out+=$c
		fi
	done
	printf '%s' "$out"
}

# The value of the last `OPTION VALUE` or `OPTION=VALUE` before the word completed, dequoted.
_numaplan_value() { # _numaplan_value OPTION
	local i v=
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		"$1") ((i + 1 < cword)) && v=${words[i + 1]} ;;
		"$1"=*) v=${words[i]#*=} ;;
		esac
	done
	[ -n "$v" ] && _numaplan_dequote "$v"
}

# Those of $@ that start with the word completed (dequoted), quoted for the line.
_numaplan_offer() {
	local want w q
	want=$(_numaplan_dequote "$cur")
	for w in "$@"; do
		if [[ $w == "$want"* ]]; then
			printf -v q %q "$w"
			COMPREPLY+=("$q")
		fi
	done
}

# Units with a drop-in numaplan wrote: in the unit directory of the line (--unit-dir), else
# systemd's two that apply writes, and in the generator's (--generator-dir, else systemd's), so a
# replica that only numaplan-generator placed is offered too. Templates are left out: the
# commands take instances.
_numaplan_units() {
	local dirs=() d f u
	d=$(_numaplan_value --unit-dir)
	if [ -n "$d" ]; then dirs+=("$d"); else dirs+=(/etc/systemd/system /run/systemd/system); fi
	d=$(_numaplan_value --generator-dir)
	dirs+=("${d:-/run/systemd/generator}")
	for d in "${dirs[@]}"; do
		for f in "$d"/*.d/50-numaplan.conf; do
			[ -f "$f" ] || continue
			u=${f%/50-numaplan.conf}
			u=${u##*/}
			u=${u%.d}
			[[ $u == *@.* ]] || printf '%s\n' "$u"
		done
	done | sort -u
}

# PCI addresses of the host numaplan looks at: under --sysfs-root when the line gives one.
_numaplan_pci() {
	local root e
	root=$(_numaplan_value --sysfs-root)
	for e in "${root%/}"/sys/bus/pci/devices/*; do
		[ -e "$e" ] && printf '%s\n' "${e##*/}"
	done
}

_numaplan() {
	local cur prev words cword split
	# Sourced without bash-completion (which loads this file on its own), nothing to build on.
	declare -F _init_completion >/dev/null || return
	# -n : keeps PCI addresses whole; -s splits --config=FILE into the option and its value.
	_init_completion -s -n : || return

	local commands="show plan apply verify status migrate prepare remove snapshot"
	local global="--sysfs-root --unit-dir --runtime-dir --generator-dir -q --quiet -v --verbose -h --help --version"
	local -A opts=(
		[show]="-c --config --json --matrix"
		[plan]="-c --config --json"
		[apply]="-c --config --check --diff --runtime --no-reload --restart --json"
		[verify]="-c --config --no-warmup --json --tap --metrics"
		[status]="-c --config --json"
		[migrate]="-c --config --dry-run --json"
		[prepare]="--nodes --copy-to --copy-size --dry-run"
		[remove]="-c --config --runtime --no-reload --json"
		[snapshot]="-o --output"
	)

	case $prev in
	-c | --config | -o | --output | --metrics)
		_filedir
		return
		;;
	--sysfs-root | --unit-dir | --runtime-dir | --generator-dir)
		_filedir -d
		return
		;;
	--nodes)
		return
		;;
	esac

	local verb= i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-c | --config | -o | --output | --metrics | --nodes | --sysfs-root | --unit-dir | --runtime-dir | --generator-dir) ((i++)) ;;
		-*) ;;
		*)
			verb=${words[i]}
			break
			;;
		esac
	done

	if [[ $cur == -* ]]; then
		local o
		o="$global${verb:+ ${opts[$verb]-}}"
		mapfile -t COMPREPLY < <(compgen -W "$o" -- "$cur")
		return
	fi
	if [ -z "$verb" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
		return
	fi
	local list
	case $verb in
	verify | status | migrate | remove)
		mapfile -t list < <(_numaplan_units)
		_numaplan_offer "${list[@]}"
		;;
	prepare) _filedir ;;
	show)
		mapfile -t list < <(_numaplan_pci)
		_numaplan_offer "${list[@]}"
		__ltrim_colon_completions "$cur"
		;;
	esac
}
complete -F _numaplan numaplan
