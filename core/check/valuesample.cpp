// Values as the value comparison sees them: a tensor kept small (whole up to Seen::kWhole elements, else a strided
// sample and the mean of all), numbers whole, compared as torch.testing.assert_close compares.

#include "check/valuesample_p.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <QStringList>

#include <algorithm>
#include <cmath>

namespace jitscope {

using c10::IValue;

namespace {

QString dtypeName(at::ScalarType t)
{
    switch (t) {
    case at::kFloat: return QStringLiteral("float32");
    case at::kDouble: return QStringLiteral("float64");
    case at::kHalf: return QStringLiteral("float16");
    case at::kBFloat16: return QStringLiteral("bfloat16");
    case at::kLong: return QStringLiteral("int64");
    case at::kInt: return QStringLiteral("int32");
    case at::kShort: return QStringLiteral("int16");
    case at::kChar: return QStringLiteral("int8");
    case at::kByte: return QStringLiteral("uint8");
    case at::kBool: return QStringLiteral("bool");
    default: return QString::fromLatin1(c10::toString(t));
    }
}

QString number(double v)
{
    return QString::number(v, 'g', 7);
}

bool closeNumbers(const std::vector<double>& a, const std::vector<double>& b, double rtol, double atol)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) && std::isnan(b[i]))
            continue;
        if (!(std::abs(a[i] - b[i]) <= atol + rtol * std::abs(b[i])))
            return false;
    }
    return true;
}

} // namespace

QString Seen::text() const
{
    if (kind == Kind::Numbers) {
        QStringList items;
        for (double v : numbers)
            items << number(v);
        return list ? QStringLiteral("[%1]").arg(items.join(QStringLiteral(", "))) : items.value(0);
    }
    if (kind != Kind::Tensor)
        return QString();
    QStringList dims;
    for (int64_t d : shape)
        dims << QString::number(d);
    const QString out
        = QStringLiteral("%1[%2]").arg(dtype, dims.isEmpty() ? QStringLiteral("scalar") : dims.join(QLatin1Char('x')));
    const int64_t n = int64_t(data.size());
    if (n == 0)
        return out;
    if (shape.empty() && n == 1)
        return QStringLiteral("%1 %2").arg(dtype, number(data[0]));
    if (whole && n <= 6) {
        QStringList items;
        for (double v : data)
            items << number(v);
        return out + QStringLiteral(" [%1]").arg(items.join(QStringLiteral(", ")));
    }
    return out
        + QStringLiteral(" mean=%1 min=%2 max=%3")
              .arg(mean, 0, 'g', 6)
              .arg(*std::min_element(data.cbegin(), data.cend()), 0, 'g', 6)
              .arg(*std::max_element(data.cbegin(), data.cend()), 0, 'g', 6);
}

Seen see(const IValue& v)
{
    Seen s;
    try {
        if (v.isTensor()) {
            const at::Tensor& t = v.toTensor();
            if (!t.defined() || t.is_sparse() || t.is_quantized() || t.is_complex())
                return s;
            s.kind = Seen::Kind::Tensor;
            s.shape = t.sizes().vec();
            s.dtype = dtypeName(t.scalar_type());
            s.floating = at::isFloatingType(t.scalar_type());
            const at::Tensor flat = t.detach().reshape({ -1 });
            const int64_t n = flat.numel();
            s.whole = n <= Seen::kWhole;
            const at::Tensor part = (s.whole ? flat
                                             : flat.slice(0, 0, n, std::max<int64_t>(1, n / Seen::kSample))
                                                   .slice(0, 0, Seen::kSample))
                                        .to(at::kDouble)
                                        .contiguous();
            s.data.assign(part.data_ptr<double>(), part.data_ptr<double>() + part.numel());
            s.mean = n == 0 ? 0 : flat.to(at::kDouble).mean().item<double>();
            if (n == 1)
                s.numbers = { s.data[0] };
        } else if (v.isInt()) {
            s.kind = Seen::Kind::Numbers;
            s.numbers = { double(v.toInt()) };
        } else if (v.isDouble()) {
            s.kind = Seen::Kind::Numbers;
            s.numbers = { v.toDouble() };
        } else if (v.isBool()) {
            s.kind = Seen::Kind::Numbers;
            s.numbers = { v.toBool() ? 1.0 : 0.0 };
        } else if (v.isIntList()) {
            s.kind = Seen::Kind::Numbers;
            s.list = true;
            for (int64_t i : v.toIntVector())
                s.numbers.push_back(double(i));
        } else if (v.isDoubleList()) {
            s.kind = Seen::Kind::Numbers;
            s.list = true;
            for (double d : v.toDoubleVector())
                s.numbers.push_back(d);
        }
    } catch (const std::exception&) {
        return Seen();
    }
    return s;
}


bool comparablePair(const Seen& a, const Seen& b)
{
    if (!comparable(a) || !comparable(b))
        return false;
    using K = Seen::Kind;
    if (a.kind == K::Numbers && b.kind == K::Numbers)
        return a.list == b.list;
    if (a.kind == K::Numbers || b.kind == K::Numbers) // a 0-dim tensor against a number
        return (a.kind == K::Tensor && a.shape.empty() && !b.list) || (b.kind == K::Tensor && b.shape.empty() && !a.list);
    return true;
}

bool close(const Seen& a, const Seen& b, double rtol, double atol)
{
    using K = Seen::Kind;
    if (a.kind == K::Tensor && b.kind == K::Tensor) {
        if (a.shape != b.shape || a.whole != b.whole)
            return false;
        if (!a.whole && !closeNumbers({ a.mean }, { b.mean }, rtol, atol))
            return false;
        return closeNumbers(a.data, b.data, rtol, atol);
    }
    // A size the trace computes as a 0-dim tensor, the script as a number.
    if ((a.kind == K::Tensor && !a.shape.empty()) || (b.kind == K::Tensor && !b.shape.empty()))
        return false;
    return closeNumbers(a.numbers, b.numbers, rtol, atol);
}


Print print(const IValue& v)
{
    Print p;
    try {
        if (v.isTensor()) {
            const at::Tensor& t = v.toTensor();
            if (!t.defined() || t.is_sparse() || t.is_quantized() || t.is_complex())
                return p;
            p.kind = Print::Kind::Tensor;
            p.shape = t.sizes().vec();
            const at::Tensor flat = t.detach().reshape({ -1 });
            const int64_t n = flat.numel();
            if (n == 0)
                return p;
            const at::Tensor probe = flat.slice(0, 0, n, std::max<int64_t>(1, n / 16)).slice(0, 0, 16).to(at::kDouble);
            p.probe.assign(probe.data_ptr<double>(), probe.data_ptr<double>() + probe.numel());
            p.mean = flat.to(at::kDouble).mean().item<double>();
        } else if (v.isTensorList()) {
            p.kind = Print::Kind::Tensors;
            const auto list = v.toTensorVector();
            p.count = list.size();
            for (size_t i = 0; i < list.size() && i < 8; ++i)
                p.items.push_back(print(IValue(list[i])));
        } else {
            const Seen s = see(v);
            if (s.kind == Seen::Kind::Numbers) {
                p.kind = Print::Kind::Numbers;
                p.probe = s.numbers;
            }
        }
    } catch (const std::exception&) {
        return Print();
    }
    return p;
}

bool samePrint(const Print& a, const Print& b, double rtol, double atol)
{
    using K = Print::Kind;
    if (a.kind == K::Other || b.kind == K::Other)
        return true;
    // A size the trace holds as a 0-dim tensor, the script as a number.
    auto number = [](const Print& p) { return p.kind == K::Numbers || (p.kind == K::Tensor && p.shape.empty()); };
    if (number(a) && number(b))
        return closeNumbers(a.probe, b.probe, rtol, atol);
    if (a.kind != b.kind)
        return false;
    if (a.kind == K::Tensors) {
        if (a.count != b.count)
            return false;
        for (size_t i = 0; i < a.items.size() && i < b.items.size(); ++i)
            if (!samePrint(a.items[i], b.items[i], rtol, atol))
                return false;
        return true;
    }
    return a.shape == b.shape && closeNumbers({ a.mean }, { b.mean }, rtol, atol)
        && closeNumbers(a.probe, b.probe, rtol, atol);
}

} // namespace jitscope
