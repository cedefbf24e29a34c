import torch


def branch_on_data(x):
    if x.sum() > 0:
        return x * 2
    else:
        return -x


inputs = (torch.ones(3, 4),)
check_inputs = [(torch.full((3, 4), -1.0),), (torch.rand(2, 5),)]

if __name__ == "__main__":
    traced = torch.jit.trace(branch_on_data, inputs, check_inputs=check_inputs)
    print(traced.graph)
