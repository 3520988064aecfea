"""The core's unit-test model (`core/src/acquisition/test_support.rs`) in BoTorch, shared by
the acquisition reference generators: a `SingleTaskGP` on four points in the unit square with a
Matérn-5/2 kernel of lengthscales (0.3, 0.5) and outputscale 1.3, constant mean 0.1 and noise
variance 1e-4, every hyperparameter fixed, no input or outcome transform."""

import torch
from botorch.models import SingleTaskGP
from gpytorch.kernels import MaternKernel, ScaleKernel
from gpytorch.likelihoods import GaussianLikelihood

torch.set_default_dtype(torch.float64)

X = torch.tensor([[0.1, 0.2], [0.8, 0.4], [0.5, 0.9], [0.3, 0.6]])
Y = torch.tensor([[0.3], [-0.2], [0.9], [0.1]])


def model():
    kernel = ScaleKernel(MaternKernel(nu=2.5, ard_num_dims=2))
    kernel.base_kernel.lengthscale = torch.tensor([[0.3, 0.5]])
    kernel.outputscale = torch.tensor(1.3)
    likelihood = GaussianLikelihood()
    likelihood.noise = torch.tensor([1e-4])
    gp = SingleTaskGP(X, Y, likelihood=likelihood, covar_module=kernel, outcome_transform=None)
    gp.mean_module.constant.data.fill_(0.1)
    gp.eval()
    return gp


def unit_cost_of_dose(u):
    """The priced problem's cost `2 + 20 p0^2 + p1` at physical `p = (2 u0, 2 u1 - 1)`."""
    p0, p1 = 2 * u[..., 0], 2 * u[..., 1] - 1
    return 2 + 20 * p0 * p0 + p1


def tree_differences(acq, t, step):
    """Central differences (step `step`) of `acq` at the four-point tree `t` (4 x 2)."""
    fd = torch.zeros(4, 2)
    with torch.no_grad():
        for s in range(4):
            for c in range(2):
                a, b = t.clone(), t.clone()
                a[s, c] += step
                b[s, c] -= step
                fd[s, c] = (acq(a.reshape(1, 4, 2)) - acq(b.reshape(1, 4, 2))).item() / (2 * step)
    return fd
