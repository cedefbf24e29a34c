# A TransformerEncoder with a key padding mask, traced at one sequence length and checked at another.
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(16, 3)

    def forward(self, x, padding):
        return self.head(self.encoder(x, src_key_padding_mask=padding))


torch.manual_seed(0)
model = Encoder().eval()
example = (torch.rand(2, 6, 16), torch.tensor([[False] * 6, [False] * 4 + [True] * 2]))
check = (torch.rand(2, 9, 16), torch.tensor([[False] * 9, [False] * 5 + [True] * 4]))
traced = torch.jit.trace(model, example, check_inputs=[check])
