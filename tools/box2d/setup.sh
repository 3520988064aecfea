#!/bin/sh
# Creates tools/box2d/.venv (ignored by git) with the pinned packages of requirements.txt, for
# the Box2D problems of paper 002's Fig. 6 (Lunar Lander, Robot Pushing). Run from anywhere:
#   sh tools/box2d/setup.sh
# Needs python3 with venv and network access to PyPI; takes a minute. Then
#   tools/box2d/.venv/bin/python tools/box2d/lunar_lander.py --check
#   tools/box2d/.venv/bin/python tools/box2d/robot_push.py --check
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
if [ ! -x "$here/.venv/bin/python" ]; then
    "$python" -m venv "$here/.venv"
fi
"$here/.venv/bin/pip" install --quiet --upgrade pip
"$here/.venv/bin/pip" install --quiet -r "$here/requirements.txt"
"$here/.venv/bin/python" "$here/lunar_lander.py" --check
"$here/.venv/bin/python" "$here/robot_push.py" --check
echo "Box2D problems ready: $here/.venv"
