# An LSTM over padded sequences of different lengths, packed as torch.nn.utils.rnn does (pytorch#15319: the
# trace "hardcodes batch size"). Traced on a batch of 3, checked on a batch of 2.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(5, 8)
        self.lstm = nn.LSTM(8, 6, batch_first=True)
        self.out = nn.Linear(6, 2)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(self.embed(x), lengths, batch_first=True, enforce_sorted=False)
        y, _ = self.lstm(packed)
        y, _ = pad_packed_sequence(y, batch_first=True)
        return self.out(y)


torch.manual_seed(0)
model = Tagger().eval()
example = (torch.rand(3, 7, 5), torch.tensor([7, 4, 2]))
check = (torch.rand(2, 5, 5), torch.tensor([5, 3]))
traced = torch.jit.trace(model, example, check_inputs=[check])
