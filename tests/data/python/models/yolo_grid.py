# A YOLO-style detection head that caches its anchor grid on the module (ultralytics/yolov5#1920): dry runs made
# the grid for 48x80, so tracing that size takes the cached grid (a baked constant) while another size makes it.
import torch
import torch.nn as nn


class Detect(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 1)
        self.grid = torch.zeros(1)

    @staticmethod
    def _make_grid(nx, ny):
        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        return torch.stack((xv, yv), 2).view(1, ny, nx, 2).float()

    def forward(self, x):
        y = self.conv(x)
        bs, _, ny, nx = y.shape
        y = y.view(bs, 3, 2, ny, nx).permute(0, 1, 3, 4, 2)
        if self.grid.shape[1:3] != y.shape[2:4]:
            self.grid = self._make_grid(nx, ny)
        return y + self.grid


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, stride=8, padding=1)
        self.detect = Detect()

    def forward(self, x):
        return self.detect(self.stem(x))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model().eval()
    model(torch.zeros(1, 3, 384, 640))  # a dry run, as export scripts make one
    traced = torch.jit.trace(model, torch.rand(1, 3, 384, 640), check_inputs=[(torch.rand(1, 3, 640, 360),)])
