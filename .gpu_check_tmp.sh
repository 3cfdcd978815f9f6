set -x
which python3 python; python3 -c "import torch;print(torch.__version__, torch.cuda.is_available())" || exit 0
cd /work/main 2>/dev/null || true
PYTHONPATH=src:tests/runtime/training timeout 200 python3 - <<'PY'
import tempfile, torch
from rl_toy_envs import CartpoleEnv
from simulo.runtime.training import RLTrainer, PolicyPlayer
env = CartpoleEnv(num_envs=64, seed=0)
d = tempfile.mkdtemp()
tr = RLTrainer(env, device="cuda", seed=0, checkpoint_dir=d, progress=False)
print("device", tr.device)
s = tr.train(40)
print("best", s["best_reward"], "steps/s", s["env_steps_per_s"])
tr.save(d + "/x.pt")
tr2 = RLTrainer(CartpoleEnv(num_envs=64, seed=0), device="cuda", seed=5, checkpoint_dir=d + "/b", progress=False)
tr2.load(d + "/x.pt")
obs = torch.randn(5, 4, device="cuda")
assert torch.equal(tr.act(obs), tr2.act(obs))
p = PolicyPlayer.from_checkpoint(d + "/x.pt", device="cpu")
print("cpu vs cuda max diff", (p(obs.cpu()) - tr.act(obs).cpu()).abs().max().item())
s2 = tr2.train(2)
print("resumed iterations", s2["iterations"])
PY
