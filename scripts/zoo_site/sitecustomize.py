"""Both stand-ins at once: scripts/torchvision_models_only/ and scripts/torchaudio_models_only/ each hold
a ``sitecustomize.py`` and Python imports only the first one on the path, so a run that needs both
(tests/libs_zoo.py: open_clip imports timm, which imports torchvision; SpeechBrain imports torchaudio)
puts this directory on PYTHONPATH instead, with the two ``--no-deps`` installs.
"""

import runpy
from pathlib import Path

for _stand_in in ("torchvision_models_only", "torchaudio_models_only"):
    runpy.run_path(str(Path(__file__).resolve().parents[1] / _stand_in / "sitecustomize.py"))
