# bash completion for numaplan: commands, their options, unit names and PCI addresses.
# Installed into bash-completion's completionsdir; loaded on demand for `numaplan`.

_numaplan_units() {
	# Units with a drop-in numaplan wrote, in systemd's two unit directories numaplan writes.
	local d f
	for d in /etc/systemd/system /run/systemd/system; do
		for f in "$d"/*.service.d/50-numaplan.conf; do
			[ -f "$f" ] || continue
			f=${f%/50-numaplan.conf}
			f=${f##*/}
			printf '%s\n' "${f%.d}"
		done
	done
}

_numaplan_pci() {
	local e
	for e in /sys/bus/pci/devices/*; do
		[ -e "$e" ] && printf '%s\n' "${e##*/}"
	done
}

_numaplan() {
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi

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
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--sysfs-root | --unit-dir | --runtime-dir | --generator-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	esac

	local verb= i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-c | --config | -o | --output | --metrics | --sysfs-root | --unit-dir | --runtime-dir | --generator-dir) ((i++)) ;;
		-*) ;;
		*)
			verb=${words[i]}
			break
			;;
		esac
	done

	if [ -z "$verb" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$global" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${opts[$verb]} $global" -- "$cur"))
		return
	fi
	case $verb in
	verify | status | migrate | remove) COMPREPLY=($(compgen -W "$(_numaplan_units)" -- "$cur")) ;;
	prepare) [ "$prev" = --nodes ] || COMPREPLY=($(compgen -f -- "$cur")) ;;
	show) COMPREPLY=($(compgen -W "$(_numaplan_pci)" -- "$cur")) ;;
	esac
}
complete -F _numaplan numaplan
