#pragma once

#include <QEventLoop>
#include <QTimer>
#include <chrono>
#include <functional>
#include <optional>

namespace opsdeck::cli {

/// Runs `start`, which hands its one answer to the callback it gets (a
/// models/ call that answers through a callback on this thread), and waits
/// for that answer in a local event loop: the command line's way to use an
/// asynchronous model. Nothing when no answer came within `deadline`.
template <typename T>
std::optional<T> awaitAnswer(const std::function<void(std::function<void(const T &)>)> &start,
                             std::chrono::milliseconds deadline = std::chrono::minutes(2))
{
    std::optional<T> result;
    QEventLoop loop;
    QTimer::singleShot(deadline, &loop, &QEventLoop::quit);
    start([&](const T &answer) {
        result = answer;
        loop.quit();
    });
    if (!result)
        loop.exec();
    return result;
}

} // namespace opsdeck::cli
