# For the lava runner's tests, after lib.sh: t0295 against the stand-in of
# tests/fixtures/fake-lava.py, tests/lava/ against a LAVA server.

# lava_conf URL TOKEN_FILE BAD_IMAGE_URL: lab.conf with target lava1 (x86_64,
# its devices TCG) and target lavabad, whose images the worker is sent to
# fetch where they are not (imageDir $TRASH/img, imageUrl BAD_IMAGE_URL)
lava_conf() {
	mkdir -p "$TRASH/img"
	cat >"$TRASH/lab.conf" <<-EOC
	[core]
		state = $TRASH/state
	[target "lava1"]
		runner = lava
		url = $1
		token = $2
		deviceType = qemu
		arch = x86_64
		accel = tcg
	[target "lavabad"]
		runner = lava
		url = $1
		token = $2
		deviceType = qemu
		accel = tcg
		imageDir = $TRASH/img
		imageUrl = $3
	EOC
}

# lava_api URL TOKEN_FILE PATH: a GET of the server's REST API
lava_api() {
	curl -sf -H "Authorization: Token $(cat "$2")" "$1/api/v0.2/$3"
}

# json_field KEY: of the JSON object on stdin
json_field() {
	python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}
